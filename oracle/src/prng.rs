//! An independent implementation of the PRNG documented in `handscope_sim::stimulus`
//! (splitmix64; one draw per result per cycle; ready when `(z >> 32) < round(prob * 2^32)`),
//! used to compute the ready bits the testbench drives and to cross-check the engine's own
//! generator.

/// splitmix64.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// Next output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `round(prob * 2^32)` clamped to `[0, 2^32]`.
pub fn threshold(prob: f64) -> u64 {
    let t = (prob * 4_294_967_296.0).round();
    if t.is_nan() || t <= 0.0 {
        0
    } else if t >= 4_294_967_296.0 {
        1 << 32
    } else {
        t as u64
    }
}

/// Ready bits of a `Random { seed, prob }` policy for cycles `0..cycles`.
pub fn random_ready_bits(seed: u64, prob: f64, cycles: usize) -> Vec<bool> {
    let mut g = SplitMix64::new(seed);
    let th = threshold(prob);
    (0..cycles).map(|_| (g.next_u64() >> 32) < th).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        // First splitmix64 output for seed 0 (published reference value).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(threshold(0.5), 1 << 31);
        assert!(random_ready_bits(1, 1.0, 100).iter().all(|b| *b));
        assert!(!random_ready_bits(1, 0.0, 100).iter().any(|b| *b));
        let n = random_ready_bits(3, 0.3, 10_000)
            .iter()
            .filter(|b| **b)
            .count();
        assert!((2700..3300).contains(&n), "{n}");
    }
}
