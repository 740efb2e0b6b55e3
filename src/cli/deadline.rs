//! The hook's hard deadline.
//!
//! At the deadline the answer prepared in advance (a block naming the overrun) goes out,
//! unless an answer already did, and the process exits. On Unix this is a one-shot
//! `ITIMER_REAL` timer whose `SIGALRM` handler writes the prepared bytes with `write(2)`
//! and leaves with `_exit(2)` (both async-signal-safe); elsewhere a watchdog thread does
//! the same. The timer replaced the thread on Unix because starting a thread cost ~0.2 ms
//! of a ~1.3 ms hook call here.

pub(super) use imp::arm;

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// Set once before the timer is armed; reading a set `OnceLock` takes no lock.
    static CLAIM: OnceLock<fn() -> bool> = OnceLock::new();
    static NOTE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static NOTE_LEN: AtomicUsize = AtomicUsize::new(0);
    static ANSWER: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static ANSWER_LEN: AtomicUsize = AtomicUsize::new(0);
    static CODE: AtomicI32 = AtomicI32::new(2);

    /// Arm the deadline: after `after`, unless `claim()` says an answer already went out,
    /// write `note` to stderr and `answer` to stdout and exit with `code`.
    pub(in crate::cli) fn arm(
        after: std::time::Duration,
        claim: fn() -> bool,
        note: Vec<u8>,
        answer: Vec<u8>,
        code: i32,
    ) -> std::io::Result<()> {
        // the handler reads these; they live until the process ends
        let note = note.leak();
        let answer = answer.leak();
        NOTE_LEN.store(note.len(), Ordering::SeqCst);
        NOTE.store(note.as_mut_ptr(), Ordering::SeqCst);
        ANSWER_LEN.store(answer.len(), Ordering::SeqCst);
        ANSWER.store(answer.as_mut_ptr(), Ordering::SeqCst);
        CODE.store(code, Ordering::SeqCst);
        let _ = CLAIM.set(claim);
        let micros = after.as_micros().max(1);
        let value = libc::timeval {
            tv_sec: (micros / 1_000_000).min(i32::MAX as u128) as libc::time_t,
            tv_usec: (micros % 1_000_000) as libc::suseconds_t,
        };
        let zero = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
        let timer = libc::itimerval {
            it_interval: zero,
            it_value: value,
        };
        // SAFETY: `sa` is fully initialised (zeroed, then the handler, flags and an empty
        // mask); the handler only loads atomics, calls `write` and `_exit`, and reads the
        // leaked buffers, which are never freed.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    extern "C" fn on_alarm(_signal: libc::c_int) {
        let Some(claim) = CLAIM.get() else {
            return;
        };
        if !claim() {
            return; // the answer already went out; let the process finish
        }
        write_all(2, &NOTE, &NOTE_LEN);
        write_all(1, &ANSWER, &ANSWER_LEN);
        // SAFETY: `_exit` is async-signal-safe and ends the process.
        unsafe { libc::_exit(CODE.load(Ordering::SeqCst)) }
    }

    fn write_all(fd: libc::c_int, buf: &AtomicPtr<u8>, len: &AtomicUsize) {
        let (mut p, mut n) = (buf.load(Ordering::SeqCst), len.load(Ordering::SeqCst));
        while n > 0 && !p.is_null() {
            // SAFETY: `p..p + n` lies inside the buffer leaked in `arm`.
            let w = unsafe { libc::write(fd, p as *const libc::c_void, n) };
            if w <= 0 {
                return;
            }
            // SAFETY: `w <= n`, so `p + w` is still inside (or one past) the buffer.
            p = unsafe { p.add(w as usize) };
            n -= w as usize;
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::io::Write;

    /// Arm the deadline: after `after`, unless `claim()` says an answer already went out,
    /// write `note` to stderr and `answer` to stdout and exit with `code`.
    pub(in crate::cli) fn arm(
        after: std::time::Duration,
        claim: fn() -> bool,
        note: Vec<u8>,
        answer: Vec<u8>,
        code: i32,
    ) -> std::io::Result<()> {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                std::thread::sleep(after);
                if claim() {
                    let _ = std::io::stderr().write_all(&note);
                    let _ = std::io::stdout().write_all(&answer);
                    let _ = std::io::stdout().flush();
                    std::process::exit(code);
                }
            })
            .map(drop)
    }
}
