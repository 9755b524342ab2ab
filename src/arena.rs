//! The global allocator: the first two MiB come from a fixed region by bumping a pointer,
//! everything after from the system allocator. sandbox-bash lives for well under a
//! millisecond before it execs bash, and most of its allocations are small and short; the C
//! library's allocator spent a fifth of that time mapping and unmapping pages. Freeing the
//! newest block of the region takes it back; other frees in the region are no-ops (the region
//! is gone at exec). Big analyses spill into the system allocator and behave as before.
//!
//! This is the one place outside `sandbox/` and `exec.rs` with `unsafe`: an allocator cannot
//! be written without it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Size of the bump region.
pub const REGION_BYTES: usize = 2 * 1024 * 1024;

#[repr(C, align(4096))]
struct Region(UnsafeCell<[u8; REGION_BYTES]>);

// SAFETY: the bytes are only handed out through `Arena`, which gives every block to one
// owner at a time (the bump offset is advanced atomically).
unsafe impl Sync for Region {}

static REGION: Region = Region(UnsafeCell::new([0; REGION_BYTES]));

/// Offset of the first free byte of the region.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The allocator (see the module documentation).
pub struct Arena;

fn base() -> usize {
    REGION.0.get() as usize
}

fn in_region(ptr: *mut u8) -> bool {
    let p = ptr as usize;
    p >= base() && p < base() + REGION_BYTES
}

impl Arena {
    /// A block from the region, or null when it is full.
    fn bump(layout: Layout) -> *mut u8 {
        let base = base();
        let mut current = NEXT.load(Ordering::Relaxed);
        loop {
            let start = (base + current).next_multiple_of(layout.align()) - base;
            let Some(end) = start.checked_add(layout.size()) else { return std::ptr::null_mut() };
            if end > REGION_BYTES {
                return std::ptr::null_mut();
            }
            match NEXT.compare_exchange_weak(current, end, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return (base + start) as *mut u8,
                Err(now) => current = now,
            }
        }
    }
}

// SAFETY: blocks from the region never overlap (each comes from an atomic bump of the offset,
// aligned as asked); a block is returned to the region only when it is the newest one, by the
// same atomic operation; everything else goes to `System`, which upholds the contract itself.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = Self::bump(layout);
        if !p.is_null() {
            return p;
        }
        // SAFETY: the caller's layout contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_region(ptr) {
            let offset = ptr as usize - base();
            // Only the newest block can be taken back; a failed exchange leaves it in place.
            let _ = NEXT.compare_exchange(offset + layout.size(), offset, Ordering::Relaxed, Ordering::Relaxed);
            return;
        }
        // SAFETY: `ptr` came from `System.alloc` with this layout (it is not in the region).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !in_region(ptr) {
            // SAFETY: `ptr` came from `System` with this layout; the contract is passed on.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        let offset = ptr as usize - base();
        // The newest block grows or shrinks in place when the region has room.
        if offset + new_size <= REGION_BYTES
            && NEXT
                .compare_exchange(offset + layout.size(), offset + new_size, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return ptr;
        }
        if new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: `new_size` is non-zero and, rounded to the alignment, does not overflow
        // (the caller's contract for realloc).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as for `alloc`.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are valid for `layout.size()` bytes and do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size()) };
            // SAFETY: `ptr` is a live block of this allocator with `layout`.
            unsafe { self.dealloc(ptr, layout) };
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_disjoint_and_spill_over() {
        let a = Arena;
        let mut blocks = Vec::new();
        for (i, align) in [1usize, 8, 16, 64, 4096, 8].iter().cycle().take(60).enumerate() {
            let layout = Layout::from_size_align(1 + i * 7, *align).unwrap();
            // SAFETY: non-zero size.
            let p = unsafe { a.alloc(layout) };
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0);
            // SAFETY: the block is valid for its size.
            unsafe { std::ptr::write_bytes(p, i as u8, layout.size()) };
            blocks.push((p, layout, i as u8));
        }
        for (p, layout, v) in &blocks {
            // SAFETY: the block is live and valid for its size.
            let bytes = unsafe { std::slice::from_raw_parts(*p, layout.size()) };
            assert!(bytes.iter().all(|b| b == v), "blocks overlap");
        }
        // Bigger than the region: from the system allocator, and freed there.
        let big = Layout::from_size_align(REGION_BYTES + 1, 8).unwrap();
        // SAFETY: non-zero size.
        let p = unsafe { a.alloc(big) };
        assert!(!p.is_null() && !in_region(p));
        // SAFETY: `p` was allocated above with `big`.
        unsafe { a.dealloc(p, big) };
        // Growing keeps the contents.
        let (p, layout, v) = blocks[10];
        // SAFETY: `p` is live with `layout`; the new size is non-zero.
        let q = unsafe { a.realloc(p, layout, layout.size() * 3) };
        // SAFETY: the first `layout.size()` bytes were copied or kept.
        let bytes = unsafe { std::slice::from_raw_parts(q, layout.size()) };
        assert!(bytes.iter().all(|b| *b == v));
    }
}
