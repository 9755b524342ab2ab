//! The global allocator. sandbox-bash lives for well under a millisecond before it execs bash
//! when the program is small, and for a fraction of a second on a 10,000-line script; either
//! way it makes many small, short allocations and then replaces itself. The C library's
//! allocators spent a fifth of start-up mapping and unmapping pages (musl) and a third of a
//! long analysis in malloc and free (glibc). So:
//!
//! - blocks of up to 64 KiB with an alignment of at most 16 are carved from chunks by bumping
//!   a pointer, and freed blocks go to a per-thread free list of their size class (16-byte
//!   steps up to 1 KiB, then powers of two), from which the same thread takes them again;
//! - the first chunk is a fixed 2 MiB region (no system call at all for a small program);
//!   later chunks, 4 MiB each, are mapped in huge pages (see [`chunk`]) and never given back
//!   (the process execs or exits soon);
//! - everything bigger or more aligned goes to the system allocator.
//!
//! A block freed by another thread joins that thread's list: all chunks belong to the process.
//! This is the one place outside `sandbox/` and `exec.rs` with `unsafe`: an allocator cannot
//! be written without it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest block in 16-byte steps.
const FINE_MAX: usize = 1024;
/// Largest block served from chunks; from `FINE_MAX` on, classes are powers of two.
const SMALL_MAX: usize = 64 * 1024;
/// Size-class step and the alignment every chunk block has.
const STEP: usize = 16;
const FINE_CLASSES: usize = FINE_MAX / STEP;
/// The fine classes, then 2, 4, 8, 16, 32 and 64 KiB.
const CLASSES: usize = FINE_CLASSES + 6;
/// Size of the first, fixed chunk.
pub const REGION_BYTES: usize = 2 * 1024 * 1024;
/// Size of every later chunk: two huge pages.
const CHUNK_BYTES: usize = 4 * 1024 * 1024;
/// The size of a huge page, to which later chunks are aligned.
const HUGE_PAGE: usize = 2 * 1024 * 1024;

#[repr(C, align(4096))]
struct Region(UnsafeCell<[u8; REGION_BYTES]>);

// SAFETY: the region is handed out once, whole, to the thread that wins `REGION_TAKEN`.
unsafe impl Sync for Region {}

static REGION: Region = Region(UnsafeCell::new([0; REGION_BYTES]));
static REGION_TAKEN: AtomicBool = AtomicBool::new(false);

/// One thread's state: the free lists and the chunk it bumps from.
struct Local {
    free: [*mut u8; CLASSES],
    bump: *mut u8,
    end: *mut u8,
}

thread_local! {
    static LOCAL: UnsafeCell<Local> = const {
        UnsafeCell::new(Local { free: [std::ptr::null_mut(); CLASSES], bump: std::ptr::null_mut(), end: std::ptr::null_mut() })
    };
}

/// The allocator (see the module documentation).
pub struct Arena;

fn class(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if size == 0 || size > SMALL_MAX || layout.align() > STEP {
        return None;
    }
    if size <= FINE_MAX {
        return Some(size.div_ceil(STEP) - 1);
    }
    // 1025..=2048 -> the first power-of-two class, and so on.
    Some(FINE_CLASSES + (size.next_power_of_two().trailing_zeros() as usize - 11))
}

/// The size of the blocks of class `c`.
fn class_size(c: usize) -> usize {
    if c < FINE_CLASSES { (c + 1) * STEP } else { 2048 << (c - FINE_CLASSES) }
}

impl Local {
    /// A block of class `c` from the free list or the chunk; null when no chunk can be had.
    fn take(&mut self, c: usize) -> *mut u8 {
        let head = self.free[c];
        if !head.is_null() {
            // SAFETY: a free block holds the address of the next free block in its first
            // bytes (written by `give`), and is at least 16 bytes long and 16-aligned.
            self.free[c] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = class_size(c);
        if (self.end as usize) - (self.bump as usize) < size && !self.refill() {
            return std::ptr::null_mut();
        }
        let p = self.bump;
        // SAFETY: `p + size` stays within the current chunk (checked above).
        self.bump = unsafe { p.add(size) };
        p
    }

    /// Puts a block of class `c` on its free list.
    fn give(&mut self, p: *mut u8, c: usize) {
        // SAFETY: the block is ours again, at least 16 bytes and 16-aligned.
        unsafe { p.cast::<*mut u8>().write(self.free[c]) };
        self.free[c] = p;
    }

    /// A new chunk: the fixed region the first time in the process, then a mapping of its
    /// own. Kept out of line, so that the common paths of `take` stay a few instructions.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> bool {
        let (start, len) = if !REGION_TAKEN.swap(true, Ordering::AcqRel) {
            (REGION.0.get().cast::<u8>(), REGION_BYTES)
        } else {
            let p = chunk();
            if p.is_null() {
                return false;
            }
            (p, CHUNK_BYTES)
        };
        self.bump = start;
        // SAFETY: `start + len` is the end of the chunk just obtained.
        self.end = unsafe { start.add(len) };
        true
    }
}

/// A new chunk of `CHUNK_BYTES`, aligned to a huge page and (on Linux) marked for huge pages;
/// null when the system has no memory. A long analysis touches tens of megabytes once each: in
/// 4 KiB pages that is thousands of page faults, which cost more than a fifth of the analysis
/// on a virtual machine; in huge pages it is a few. (The fixed first chunk keeps 4 KiB pages:
/// a small program touches a few of them, and a huge page would be zeroed whole.)
fn chunk() -> *mut u8 {
    let len = CHUNK_BYTES + HUGE_PAGE;
    // SAFETY: a new private anonymous mapping; it aliases nothing.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let start = p as usize;
    let aligned = start.next_multiple_of(HUGE_PAGE);
    let (head, tail) = (aligned - start, start + len - (aligned + CHUNK_BYTES));
    // SAFETY: the head and the tail lie inside the mapping just made, outside the chunk.
    unsafe {
        if head > 0 {
            libc::munmap(p, head);
        }
        if tail > 0 {
            libc::munmap((aligned + CHUNK_BYTES) as *mut libc::c_void, tail);
        }
    }
    // Advice only: without transparent huge pages the chunk simply has small pages.
    #[cfg(target_os = "linux")]
    // SAFETY: the range is the chunk, mapped above.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, CHUNK_BYTES, libc::MADV_HUGEPAGE);
    }
    aligned as *mut u8
}

// SAFETY: a chunk block is handed to one owner at a time: it is either in exactly one
// thread's free list, or between the bump pointer and nowhere else, or in use; blocks are
// 16-aligned and at least as large as asked (the class rounds up). The class is a function of
// the layout alone, so `dealloc` and `realloc` send a block back where it came from. Big or
// over-aligned blocks are `System`'s, which upholds the contract itself.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = class(layout)
            && let Ok(p) = LOCAL.try_with(|l| {
                // SAFETY: only this thread touches its `Local`, and not re-entrantly
                // (`take` does not allocate through the global allocator).
                unsafe { (*l.get()).take(c) }
            })
            && !p.is_null()
        {
            return p;
        }
        if class(layout).is_some() {
            // No chunk could be had (or no thread-local storage): fall back to a block of
            // the full class size from the system, which `dealloc` cannot tell apart, so
            // the system would be handed a chunk block later. Refuse instead.
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if let Some(c) = class(layout) {
            // SAFETY: as in `alloc`; the block came from `take` (its class is the layout's).
            // A thread whose storage is gone keeps the block: it is simply not reused.
            let _ = LOCAL.try_with(|l| unsafe { (*l.get()).give(ptr, c) });
            return;
        }
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees that `new_size`, rounded up to the alignment, fits.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class(layout), class(new_layout)) {
            (None, None) => {
                // SAFETY: `ptr` is `System`'s with `layout`; the contract is passed on.
                unsafe { System.realloc(ptr, layout, new_size) }
            }
            (Some(a), Some(b)) if a == b => ptr,
            _ => {
                // SAFETY: `new_layout` is valid and non-zero.
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and do not overlap.
                    unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
                    // SAFETY: `ptr` is a live block of this allocator with `layout`.
                    unsafe { self.dealloc(ptr, layout) };
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates, fills, frees and reallocates blocks of many sizes and alignments on several
    /// threads at once, checking that no two live blocks overlap and contents survive.
    #[test]
    fn classes_cover_every_size_and_round_up() {
        let mut last = 0;
        for size in 1..=SMALL_MAX {
            let c = class(Layout::from_size_align(size, 8).unwrap()).unwrap();
            assert!(c < CLASSES && c >= last, "{size}");
            assert!(class_size(c) >= size, "{size}");
            last = c;
        }
        assert_eq!(class_size(CLASSES - 1), SMALL_MAX);
        assert!(class(Layout::from_size_align(SMALL_MAX + 1, 8).unwrap()).is_none());
        assert!(class(Layout::from_size_align(64, 32).unwrap()).is_none());
    }

    #[test]
    fn blocks_are_aligned_disjoint_and_survive_reuse_and_realloc() {
        let threads: Vec<_> = (0..4u8)
            .map(|t| {
                std::thread::spawn(move || {
                    let a = Arena;
                    let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
                    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(t);
                    for i in 0..20_000usize {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let size = 1 + (seed as usize % 70_000);
                        let align = [1usize, 8, 16, 32, 4096][(seed >> 20) as usize % 5];
                        let layout = Layout::from_size_align(size, align).unwrap();
                        let v = (i % 251) as u8;
                        match seed % 4 {
                            0 | 1 => {
                                // SAFETY: non-zero size.
                                let p = unsafe { a.alloc(layout) };
                                assert!(!p.is_null());
                                assert_eq!(p as usize % align, 0);
                                // SAFETY: the block is valid for its size.
                                unsafe { std::ptr::write_bytes(p, v, size) };
                                live.push((p, layout, v));
                            }
                            2 if !live.is_empty() => {
                                let (p, l, v) = live.swap_remove(seed as usize % live.len());
                                // SAFETY: live block, valid for its size.
                                let bytes = unsafe { std::slice::from_raw_parts(p, l.size()) };
                                assert!(bytes.iter().all(|b| *b == v), "a live block was overwritten");
                                // SAFETY: `p` was allocated with `l`.
                                unsafe { a.dealloc(p, l) };
                            }
                            _ if !live.is_empty() => {
                                let k = seed as usize % live.len();
                                let (p, l, v) = live[k];
                                // SAFETY: `p` is live with `l`; the new size is non-zero.
                                let q = unsafe { a.realloc(p, l, size) };
                                assert!(!q.is_null());
                                let kept = l.size().min(size);
                                // SAFETY: `kept` bytes were kept.
                                let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                                assert!(bytes.iter().all(|b| *b == v), "realloc lost the contents");
                                let nl = Layout::from_size_align(size, l.align()).unwrap();
                                // SAFETY: the new block is valid for `size` bytes.
                                unsafe { std::ptr::write_bytes(q, v, size) };
                                live[k] = (q, nl, v);
                            }
                            _ => {}
                        }
                    }
                    for (p, l, v) in live {
                        // SAFETY: live block, valid for its size.
                        let bytes = unsafe { std::slice::from_raw_parts(p, l.size()) };
                        assert!(bytes.iter().all(|b| *b == v), "a live block was overwritten");
                        // SAFETY: `p` was allocated with `l`.
                        unsafe { a.dealloc(p, l) };
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
