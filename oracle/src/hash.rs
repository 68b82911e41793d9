//! A small stable content hash (FNV-1a, 2 x 64 bits) for cache keys.

/// Incremental hasher whose output depends only on the bytes fed in (stable across runs,
/// platforms and compiler versions, unlike `std`'s `DefaultHasher`).
#[derive(Clone, Debug)]
pub struct StableHasher {
    a: u64,
    b: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher {
            a: 0xcbf2_9ce4_8422_2325,
            b: 0x6c62_272e_07bb_0142,
        }
    }
}

impl StableHasher {
    /// Feeds a length-prefixed byte string (so `("ab","c")` and `("a","bc")` differ).
    pub fn update(&mut self, bytes: &[u8]) -> &mut Self {
        for &x in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.a = (self.a ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
            self.b = (self.b ^ u64::from(x))
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
        self
    }

    /// 32 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.a, self.b)
    }
}

/// Hash of several byte strings, as 32 hex digits.
pub fn hash_hex(parts: &[&[u8]]) -> String {
    let mut h = StableHasher::default();
    for p in parts {
        h.update(p);
    }
    h.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_boundary_sensitive() {
        assert_eq!(hash_hex(&[b"abc"]), hash_hex(&[b"abc"]));
        assert_ne!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"a", b"bc"]));
        assert_eq!(hash_hex(&[]).len(), 32);
    }
}
