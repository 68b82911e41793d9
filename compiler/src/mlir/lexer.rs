//! Tokenizer for the subset of MLIR's textual syntax that handshake files use.

use super::diag::Span;

/// One lexical token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A bare identifier or keyword (`fork`, `i32`, `handshake.func`, `xi32`).
    Ident(String),
    /// `%name` or `%name#k`.
    Value {
        name: String,
        index: Option<u32>,
    },
    /// `#name` (attribute alias or dialect attribute prefix).
    Hash(String),
    /// `@name` or `@"name"`.
    At(String),
    /// `^name` (block label).
    Caret(String),
    /// `!name` (dialect type or type alias).
    Bang(String),
    /// Integer literal (decimal or `0x` hex), without sign.
    Int(u128),
    /// Integer literal too large for [`Tok::Int`] (a constant of a wide type), as written.
    BigInt(String),
    /// Floating-point literal, kept as written.
    Float(String),
    /// String literal with escapes resolved.
    Str(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    Arrow,
    Minus,
    Plus,
    Star,
    Question,
    Ellipsis,
    /// End of input.
    Eof,
}

impl Tok {
    /// Short human-readable description for "expected X, found Y" messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Value { name, index: None } => format!("`%{name}`"),
            Tok::Value {
                name,
                index: Some(i),
            } => format!("`%{name}#{i}`"),
            Tok::Hash(s) => format!("`#{s}`"),
            Tok::At(s) => format!("`@{s}`"),
            Tok::Caret(s) => format!("`^{s}`"),
            Tok::Bang(s) => format!("`!{s}`"),
            Tok::Int(v) => format!("integer `{v}`"),
            Tok::BigInt(v) => format!("integer `{v}`"),
            Tok::Float(s) => format!("float `{s}`"),
            Tok::Str(_) => "a string".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Less => "`<`".into(),
            Tok::Greater => "`>`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Equal => "`=`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Star => "`*`".into(),
            Tok::Question => "`?`".into(),
            Tok::Ellipsis => "`...`".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A lexing failure: message and where.
#[derive(Clone, Debug)]
pub(crate) struct LexError {
    pub(crate) span: Span,
    pub(crate) message: String,
}

/// Pull-based lexer over a source string with one token of lookahead.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    peeked: Option<(Tok, Span)>,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub(crate) fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            peeked: None,
        }
    }

    /// The source text.
    pub(crate) fn src(&self) -> &'a str {
        self.src
    }

    /// Looks at the next token without consuming it.
    pub(crate) fn peek(&mut self) -> Result<&(Tok, Span), LexError> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    /// Consumes and returns the next token.
    pub(crate) fn next_tok(&mut self) -> Result<(Tok, Span), LexError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    /// Byte offset where the next token (after whitespace) starts.
    pub(crate) fn next_start(&mut self) -> Result<usize, LexError> {
        Ok(self.peek()?.1.start)
    }

    /// Byte offset just after the last consumed character.
    pub(crate) fn raw_pos(&self) -> usize {
        match &self.peeked {
            Some((_, s)) => s.start,
            None => self.pos,
        }
    }

    /// Forgets any peeked token and restarts raw scanning at its start.
    fn unpeek(&mut self) {
        if let Some((_, s)) = self.peeked.take() {
            self.pos = s.start;
        }
    }

    /// Scans a memref dimension list (`4x8x`) directly from the text. Returns the dimensions
    /// and, for a dynamic (`?`) dimension, its span.
    pub(crate) fn scan_dims(&mut self) -> Result<(Vec<u64>, Option<Span>), LexError> {
        self.unpeek();
        self.skip_trivia();
        let b = self.src.as_bytes();
        let mut dims = Vec::new();
        let mut dynamic = None;
        loop {
            let start = self.pos;
            let mut end = start;
            if end < b.len() && b[end] == b'?' {
                end += 1;
            } else {
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
            }
            if end == start || end >= b.len() || b[end] != b'x' {
                break;
            }
            if b[start] == b'?' {
                dynamic.get_or_insert(Span::new(start, end));
                dims.push(0);
            } else {
                let v: u64 = self.src[start..end].parse().map_err(|_| LexError {
                    span: Span::new(start, end),
                    message: "memref dimension is too large".into(),
                })?;
                dims.push(v);
            }
            self.pos = end + 1;
        }
        Ok((dims, dynamic))
    }

    fn skip_trivia(&mut self) {
        let b = self.src.as_bytes();
        loop {
            while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if b[self.pos..].starts_with(b"//") {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn lex(&mut self) -> Result<(Tok, Span), LexError> {
        self.skip_trivia();
        let b = self.src.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return Ok((Tok::Eof, Span::new(b.len(), b.len())));
        }
        let c = b[start];
        let single = |t: Tok, lexer: &mut Self| {
            lexer.pos += 1;
            Ok((t, Span::new(start, start + 1)))
        };
        match c {
            b'(' => single(Tok::LParen, self),
            b')' => single(Tok::RParen, self),
            b'[' => single(Tok::LBracket, self),
            b']' => single(Tok::RBracket, self),
            b'{' => single(Tok::LBrace, self),
            b'}' => single(Tok::RBrace, self),
            b'<' => single(Tok::Less, self),
            b'>' => single(Tok::Greater, self),
            b',' => single(Tok::Comma, self),
            b':' => single(Tok::Colon, self),
            b'=' => single(Tok::Equal, self),
            b'+' => single(Tok::Plus, self),
            b'*' => single(Tok::Star, self),
            b'?' => single(Tok::Question, self),
            b'-' => {
                if b.get(start + 1) == Some(&b'>') {
                    self.pos += 2;
                    Ok((Tok::Arrow, Span::new(start, start + 2)))
                } else {
                    single(Tok::Minus, self)
                }
            }
            b'.' => {
                if b[start..].starts_with(b"...") {
                    self.pos += 3;
                    Ok((Tok::Ellipsis, Span::new(start, start + 3)))
                } else {
                    Err(self.err(start, start + 1, "unexpected character `.`"))
                }
            }
            b'"' => self.lex_string(),
            b'%' => {
                let name = self.lex_suffix_id(start)?;
                let mut index = None;
                if b.get(self.pos) == Some(&b'#')
                    && b.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
                {
                    let s = self.pos + 1;
                    let mut e = s;
                    while e < b.len() && b[e].is_ascii_digit() {
                        e += 1;
                    }
                    let v: u32 = self.src[s..e]
                        .parse()
                        .map_err(|_| self.err(s, e, "result number is too large"))?;
                    index = Some(v);
                    self.pos = e;
                }
                Ok((Tok::Value { name, index }, Span::new(start, self.pos)))
            }
            b'^' => {
                let name = self.lex_suffix_id(start)?;
                Ok((Tok::Caret(name), Span::new(start, self.pos)))
            }
            b'#' | b'!' => {
                let s = start + 1;
                let mut e = s;
                while e < b.len() && (is_ident_char(b[e]) || (e > s && b[e] == b'-')) {
                    e += 1;
                }
                if e == s {
                    return Err(self.err(start, s, "expected an identifier after this character"));
                }
                self.pos = e;
                let name = self.src[s..e].to_string();
                let t = if c == b'#' {
                    Tok::Hash(name)
                } else {
                    Tok::Bang(name)
                };
                Ok((t, Span::new(start, e)))
            }
            b'@' => {
                if b.get(start + 1) == Some(&b'"') {
                    self.pos += 1;
                    let (t, sp) = self.lex_string()?;
                    let Tok::Str(s) = t else {
                        unreachable!("lex_string returns Str")
                    };
                    return Ok((Tok::At(s), Span::new(start, sp.end)));
                }
                let s = start + 1;
                let mut e = s;
                while e < b.len() && (is_suffix_char(b[e])) {
                    e += 1;
                }
                if e == s {
                    return Err(self.err(start, s, "expected a symbol name after `@`"));
                }
                self.pos = e;
                Ok((Tok::At(self.src[s..e].to_string()), Span::new(start, e)))
            }
            c if c.is_ascii_digit() => self.lex_number(),
            c if is_ident_start(c) => {
                let mut e = start;
                while e < b.len() && is_ident_char(b[e]) {
                    e += 1;
                }
                self.pos = e;
                Ok((
                    Tok::Ident(self.src[start..e].to_string()),
                    Span::new(start, e),
                ))
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                let e = start + ch.len_utf8();
                Err(self.err(
                    start,
                    e,
                    &format!("unexpected character `{}`", ch.escape_default()),
                ))
            }
        }
    }

    fn err(&self, s: usize, e: usize, msg: &str) -> LexError {
        LexError {
            span: Span::new(s, e),
            message: msg.to_string(),
        }
    }

    fn lex_suffix_id(&mut self, start: usize) -> Result<String, LexError> {
        let b = self.src.as_bytes();
        let s = start + 1;
        let mut e = s;
        if e < b.len() && b[e].is_ascii_digit() {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
        } else {
            while e < b.len() && is_suffix_char(b[e]) {
                e += 1;
            }
        }
        if e == s {
            return Err(self.err(start, s, "expected a name after this character"));
        }
        self.pos = e;
        Ok(self.src[s..e].to_string())
    }

    fn lex_number(&mut self) -> Result<(Tok, Span), LexError> {
        let b = self.src.as_bytes();
        let start = self.pos;
        let mut e = start;
        if b[start] == b'0'
            && b.get(start + 1) == Some(&b'x')
            && b.get(start + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            e = start + 2;
            while e < b.len() && b[e].is_ascii_hexdigit() {
                e += 1;
            }
            self.pos = e;
            let tok = match u128::from_str_radix(&self.src[start + 2..e], 16) {
                Ok(v) => Tok::Int(v),
                Err(_) => Tok::BigInt(self.src[start..e].to_string()),
            };
            return Ok((tok, Span::new(start, e)));
        }
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        if e < b.len()
            && b[e] == b'.'
            && b.get(e + 1)
                .is_none_or(|c| !c.is_ascii_alphabetic() && *c != b'.')
        {
            e += 1;
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            if e < b.len() && (b[e] == b'e' || b[e] == b'E') {
                let mut f = e + 1;
                if f < b.len() && (b[f] == b'+' || b[f] == b'-') {
                    f += 1;
                }
                if f < b.len() && b[f].is_ascii_digit() {
                    e = f;
                    while e < b.len() && b[e].is_ascii_digit() {
                        e += 1;
                    }
                }
            }
            self.pos = e;
            return Ok((
                Tok::Float(self.src[start..e].to_string()),
                Span::new(start, e),
            ));
        }
        self.pos = e;
        let tok = match self.src[start..e].parse::<u128>() {
            Ok(v) => Tok::Int(v),
            Err(_) => Tok::BigInt(self.src[start..e].to_string()),
        };
        Ok((tok, Span::new(start, e)))
    }

    fn lex_string(&mut self) -> Result<(Tok, Span), LexError> {
        let b = self.src.as_bytes();
        let start = self.pos;
        let mut i = start + 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            if i >= b.len() || b[i] == b'\n' {
                return Err(self.err(start, start + 1, "unterminated string literal"));
            }
            match b[i] {
                b'"' => {
                    i += 1;
                    break;
                }
                b'\\' => {
                    let n = b.get(i + 1).copied();
                    match n {
                        Some(b'"') | Some(b'\\') => {
                            out.push(n.unwrap_or(b'\\'));
                            i += 2;
                        }
                        Some(b'n') => {
                            out.push(b'\n');
                            i += 2;
                        }
                        Some(b't') => {
                            out.push(b'\t');
                            i += 2;
                        }
                        Some(h)
                            if h.is_ascii_hexdigit()
                                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                        {
                            let v = u8::from_str_radix(&self.src[i + 1..i + 3], 16).unwrap_or(0);
                            out.push(v);
                            i += 3;
                        }
                        _ => return Err(self.err(i, i + 1, "unknown escape sequence in string")),
                    }
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        self.pos = i;
        let s = String::from_utf8_lossy(&out).into_owned();
        Ok((Tok::Str(s), Span::new(start, i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s);
        let mut v = Vec::new();
        loop {
            let (t, _) = l.next_tok().unwrap();
            if t == Tok::Eof {
                return v;
            }
            v.push(t);
        }
    }

    #[test]
    fn lexes_values_and_punctuation() {
        let t = toks("%0:2 = fork [2] %arg0#1 : i32 // c\n -> ... @f @\"q r\" 0x1F -7 1.5e3");
        assert_eq!(
            t[0],
            Tok::Value {
                name: "0".into(),
                index: None
            }
        );
        assert_eq!(t[1], Tok::Colon);
        assert_eq!(t[2], Tok::Int(2));
        assert_eq!(
            t[8],
            Tok::Value {
                name: "arg0".into(),
                index: Some(1)
            }
        );
        assert!(t.contains(&Tok::Arrow) && t.contains(&Tok::Ellipsis));
        assert!(t.contains(&Tok::At("q r".into())));
        assert!(t.contains(&Tok::Int(31)));
        assert!(t.contains(&Tok::Float("1.5e3".into())));
    }

    #[test]
    fn scans_memref_dims() {
        let mut l = Lexer::new(" 4x8xi32>");
        let (d, dynm) = l.scan_dims().unwrap();
        assert_eq!(d, vec![4, 8]);
        assert!(dynm.is_none());
        assert_eq!(l.next_tok().unwrap().0, Tok::Ident("i32".into()));
    }

    #[test]
    fn unterminated_string_is_an_error() {
        let mut l = Lexer::new("\"abc");
        assert!(l.next_tok().is_err());
    }
}
