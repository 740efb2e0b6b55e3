//! 64-bit FNV-1a: the compiled-policy cache's key and checksum, and the prefilter's map
//! hasher (short keys, no need for SipHash's flood resistance there). Its own module so
//! `cache` and `prefilter` both use it without depending on each other.

/// 64-bit FNV-1a as a [`std::hash::Hasher`] (also the prefilter's map hasher).
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// 64-bit FNV-1a over `parts`, the cache's key and checksum.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    use std::hash::Hasher;
    let mut h = Fnv::default();
    for p in parts {
        h.write(p);
        // Separate parts so ("ab","c") and ("a","bc") differ.
        h.write_u8(0xff);
    }
    h.finish()
}
