//! Memory copy and fill for the static musl build on x86_64.
//!
//! musl's `memcpy` and `memmove` copy eight bytes at a time after a byte loop, which costs
//! start-up dearly: most copies at start-up are a few dozen bytes (path and name strings), and
//! they made the planner and the analysis of a one-word program about a third slower than
//! with glibc. `rep movsb` and `rep stosb` are what x86_64 processors since about 2012 make fast
//! for every size (the "enhanced rep movsb" feature, and "fast short rep mov" for short copies
//! on recent ones); on older processors long copies are slower than with musl's loop, which
//! costs the analysis of big scripts there, not correctness. The binary exports these as
//! `memcpy`, `memmove` and `memset` when it is linked against musl (see `main.rs`); elsewhere the
//! C library's are used.

/// Copies `n` bytes from `src` to `dest`, lowest address first.
///
/// # Safety
///
/// `src` must be valid for reading and `dest` for writing `n` bytes, and if the two ranges
/// overlap, `dest` must not lie inside `src`'s range after its start (`dest <= src` is fine).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn copy_forward(dest: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller guarantees both ranges; the direction flag is clear by the ABI.
    unsafe {
        core::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dest => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        );
    }
}

/// Copies `n` bytes from `src` to `dest`, highest address first: right for an overlap where
/// `dest` lies above `src`.
///
/// # Safety
///
/// `src` must be valid for reading and `dest` for writing `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn copy_backward(dest: *mut u8, src: *const u8, n: usize) {
    if n == 0 {
        return;
    }
    // SAFETY: the caller guarantees both ranges; the last byte of each is at offset n - 1.
    // The direction flag is set for the copy only and cleared again, as the ABI requires.
    unsafe {
        core::arch::asm!(
            "std",
            "rep movsb",
            "cld",
            inout("rcx") n => _,
            inout("rdi") dest.add(n - 1) => _,
            inout("rsi") src.add(n - 1) => _,
            options(nostack)
        );
    }
}

/// Copies `n` bytes from `src` to `dest`, which may overlap, as `memmove` does.
///
/// # Safety
///
/// `src` must be valid for reading and `dest` for writing `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn copy(dest: *mut u8, src: *const u8, n: usize) {
    // Forward unless `dest` starts inside `src`'s range, where a forward copy would overwrite
    // bytes not yet read (the subtraction wraps for `dest < src`, which is forward too).
    // SAFETY: the caller guarantees both ranges; the direction is chosen for the overlap.
    unsafe {
        if (dest as usize).wrapping_sub(src as usize) >= n {
            copy_forward(dest, src, n);
        } else {
            copy_backward(dest, src, n);
        }
    }
}

/// Sets `n` bytes at `dest` to `byte`.
///
/// # Safety
///
/// `dest` must be valid for writing `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn fill(dest: *mut u8, byte: u8, n: usize) {
    // SAFETY: the caller guarantees the range; the direction flag is clear by the ABI.
    unsafe {
        core::arch::asm!(
            "rep stosb",
            inout("rcx") n => _,
            inout("rdi") dest => _,
            in("al") byte,
            options(nostack, preserves_flags)
        );
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Every length up to 300 and some large ones, at every alignment up to 16, both
    /// directions of overlap and none, against the C library's `memmove`.
    #[test]
    fn copies_agree_with_the_c_library_for_every_length_alignment_and_overlap() {
        for n in (0..300).chain([511, 4096, 4097, 65_537]) {
            let size = n + 128;
            let pattern: Vec<u8> = (0..size).map(|i| (i * 7 + n) as u8).collect();
            for align in 0..16usize {
                for shift in [-17isize, -8, -1, 0, 1, 8, 17] {
                    let src = 40 + align;
                    let dst = (src as isize + shift) as usize;
                    let mut ours = pattern.clone();
                    let mut theirs = pattern.clone();
                    // SAFETY: both ranges lie inside the vectors (src + n and dst + n < size).
                    unsafe {
                        copy(ours.as_mut_ptr().add(dst), ours.as_ptr().add(src), n);
                        libc::memmove(theirs.as_mut_ptr().add(dst).cast(), theirs.as_ptr().add(src).cast(), n);
                    }
                    assert!(ours == theirs, "n={n} align={align} shift={shift}");
                }
                // Apart: one buffer into another, forward as `memcpy` is used.
                let mut ours = vec![0u8; size];
                // SAFETY: both ranges lie inside their vectors.
                unsafe { copy_forward(ours.as_mut_ptr().add(align), pattern.as_ptr().add(16 - align), n) };
                assert_eq!(&ours[align..align + n], &pattern[16 - align..16 - align + n], "n={n} align={align}");
                assert!(ours[..align].iter().chain(&ours[align + n..]).all(|&b| b == 0), "n={n} align={align}");
            }
        }
    }

    #[test]
    fn fill_sets_exactly_the_range() {
        for n in (0..300).chain([4096, 65_537]) {
            for align in 0..16usize {
                let mut v = vec![0xAAu8; n + 64];
                // SAFETY: the range lies inside the vector.
                unsafe { fill(v.as_mut_ptr().add(8 + align), 0x5C, n) };
                for (i, &b) in v.iter().enumerate() {
                    let inside = i >= 8 + align && i < 8 + align + n;
                    assert_eq!(b, if inside { 0x5C } else { 0xAA }, "n={n} align={align} at {i}");
                }
            }
        }
    }

    #[test]
    fn the_direction_flag_is_clear_after_a_backward_copy() {
        let mut v: Vec<u8> = (0..64).collect();
        // SAFETY: both ranges lie inside the vector.
        unsafe { copy(v.as_mut_ptr().add(1), v.as_ptr(), 32) };
        let flags: u64;
        // SAFETY: reads the flags register only.
        unsafe { core::arch::asm!("pushfq", "pop {}", out(reg) flags) };
        assert_eq!(flags & (1 << 10), 0, "DF must be clear");
        let expected: Vec<u8> = [0].into_iter().chain(0..32).chain(33..64).collect();
        assert_eq!(v, expected);
    }
}
