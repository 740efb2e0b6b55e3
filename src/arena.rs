//! The binary's global allocator: the system allocator, except in `warden hook`, where a bump
//! arena serves every allocation.
//!
//! A hook process lives for one event (a few milliseconds) and makes some ten thousand small
//! allocations while it loads the compiled policy; with the system allocator those cost about
//! a third of its instructions. In the arena an allocation is an atomic add and a free is a
//! no-op; the process exits before that matters. The arena is [`ARENA_BYTES`] of address
//! space reserved from the system allocator (the kernel backs only the pages touched); once it
//! is used up, allocations go to the system allocator again. Every other subcommand (the
//! streaming `warden redact`, `warden check`, ...) never turns the arena on.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Arena size: what a hook needs with the compiled-policy cache (under 2 MiB for the shipped
/// packs). A load without the cache (parse and check every pack) runs past it and goes on
/// with the system allocator, whose reuse of freed memory then saves more page faults than
/// the bump saves instructions (measured: 64 MiB made that path 31 -> 39 ms, 2 MiB 33 ms).
const ARENA_BYTES: usize = 2 << 20;

/// The allocator installed in `main.rs`.
pub struct HookArena {
    base: AtomicPtr<u8>,
    next: AtomicUsize,
}

impl HookArena {
    /// An allocator that behaves as [`System`] until [`HookArena::enable`].
    pub const fn new() -> Self {
        HookArena {
            base: AtomicPtr::new(std::ptr::null_mut()),
            next: AtomicUsize::new(0),
        }
    }

    /// Serve allocations from here on out of the arena (once, early in `warden hook`).
    pub fn enable(&self) {
        if !self.base.load(Ordering::Acquire).is_null() {
            return;
        }
        let Ok(layout) = Layout::from_size_align(ARENA_BYTES, 4096) else {
            return;
        };
        // SAFETY: `layout` has a non-zero size.
        let base = unsafe { System.alloc(layout) };
        if !base.is_null() {
            self.base.store(base, Ordering::Release);
        }
    }

    fn owns(&self, ptr: *mut u8) -> bool {
        let base = self.base.load(Ordering::Acquire);
        !base.is_null() && {
            let (p, b) = (ptr as usize, base as usize);
            p >= b && p < b + ARENA_BYTES
        }
    }

    /// A block of `layout` from the arena, or null when it is off or full.
    fn bump(&self, layout: Layout) -> *mut u8 {
        let base = self.base.load(Ordering::Acquire);
        if base.is_null() {
            return std::ptr::null_mut();
        }
        let align = layout.align();
        let mut cur = self.next.load(Ordering::Relaxed);
        loop {
            // `base` is page-aligned, so aligning the offset aligns the address
            let start = (cur + align - 1) & !(align - 1);
            let end = match start.checked_add(layout.size()) {
                Some(e) if e <= ARENA_BYTES => e,
                _ => return std::ptr::null_mut(),
            };
            match self
                .next
                .compare_exchange_weak(cur, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                // SAFETY: `start + size <= ARENA_BYTES`, inside the reserved block.
                Ok(_) => return unsafe { base.add(start) },
                Err(now) => cur = now,
            }
        }
    }
}

impl Default for HookArena {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: arena blocks are disjoint (handed out by an atomic bump of `next`), aligned as
// asked, inside one live system allocation that is never freed; everything else is the
// system allocator's, and each pointer goes back to the allocator that made it (`owns`).
unsafe impl GlobalAlloc for HookArena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.bump(layout);
        if p.is_null() {
            System.alloc(layout)
        } else {
            p
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !self.owns(ptr) {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.owns(ptr) {
            return System.realloc(ptr, layout, new_size);
        }
        if new_size <= layout.size() {
            return ptr;
        }
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        let new = self.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size());
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_disjoint_and_fall_back_when_full() {
        let a = HookArena::new();
        unsafe {
            // off: the system allocator
            let l = Layout::from_size_align(24, 8).unwrap();
            let p = a.alloc(l);
            assert!(!a.owns(p));
            a.dealloc(p, l);
            a.enable();
            let mut last = 0usize;
            for align in [1usize, 8, 16, 64, 4096] {
                let l = Layout::from_size_align(100, align).unwrap();
                let p = a.alloc(l);
                assert!(a.owns(p));
                assert_eq!(p as usize % align, 0);
                assert!(p as usize >= last);
                last = p as usize + 100;
                p.write_bytes(0xAB, 100);
                let q = a.realloc(p, l, 300);
                assert_eq!(*q.add(99), 0xAB);
                a.dealloc(q, Layout::from_size_align(300, align).unwrap());
            }
            let big = Layout::from_size_align(ARENA_BYTES, 8).unwrap();
            let p = a.alloc(big);
            assert!(!p.is_null() && !a.owns(p));
            a.dealloc(p, big);
        }
    }
}
