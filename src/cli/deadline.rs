//! The hook's hard deadline, covering the whole process: reading stdin, deciding, the
//! answer, the audit write and the exit.
//!
//! At the deadline the answer prepared in advance (a block naming the overrun) goes out,
//! with its audit line, unless an answer already did; if one did, the process exits with
//! that answer's code (a hang after answering, e.g. on a slow log, must not keep Hermes
//! waiting into its own timeout, which fails open). On Unix this is a one-shot
//! `ITIMER_REAL` timer whose `SIGALRM` handler writes the prepared bytes with `write(2)`
//! and leaves with `_exit(2)` (all async-signal-safe); elsewhere a watchdog thread does
//! the same. The timer replaced the thread on Unix because starting a thread cost ~0.2 ms
//! of a ~1.3 ms hook call here.

pub(super) use imp::arm;

/// What the deadline does, prepared before it is armed.
pub(super) struct Prepared<'a> {
    /// Claims the right to answer; false if an answer already started.
    pub(super) claim: fn() -> bool,
    /// The exit code of the answer that went out, once fully written.
    pub(super) answered: fn() -> Option<i32>,
    /// Bytes for stderr.
    pub(super) note: Vec<u8>,
    /// The one JSON line for stdout.
    pub(super) answer: Vec<u8>,
    /// The open audit log and the line to append, if logging.
    pub(super) audit: Option<(&'a std::fs::File, Vec<u8>)>,
    /// The exit code of the prepared answer.
    pub(super) code: i32,
}

#[cfg(unix)]
mod imp {
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// `claim` and `answered` of [`super::Prepared`].
    type Calls = (fn() -> bool, fn() -> Option<i32>);

    /// Set once before the timer is armed; reading a set `OnceLock` takes no lock.
    static CALLS: OnceLock<Calls> = OnceLock::new();
    static NOTE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static NOTE_LEN: AtomicUsize = AtomicUsize::new(0);
    static ANSWER: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static ANSWER_LEN: AtomicUsize = AtomicUsize::new(0);
    static AUDIT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static AUDIT_LEN: AtomicUsize = AtomicUsize::new(0);
    static AUDIT_FD: AtomicI32 = AtomicI32::new(-1);
    static CODE: AtomicI32 = AtomicI32::new(2);

    fn store(bytes: Vec<u8>, ptr: &AtomicPtr<u8>, len: &AtomicUsize) {
        // the handler reads these; they live until the process ends
        let b = bytes.leak();
        len.store(b.len(), Ordering::SeqCst);
        ptr.store(b.as_mut_ptr(), Ordering::SeqCst);
    }

    fn set_timer(micros: u128) -> libc::c_int {
        let micros = micros.max(1);
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
        // SAFETY: `timer` is a fully initialised itimerval; setitimer is a plain syscall.
        unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) }
    }

    /// Arm the deadline: after `after`, answer with `p` unless an answer already went out
    /// (then exit with its code).
    pub(in crate::cli) fn arm(
        after: std::time::Duration,
        p: super::Prepared<'_>,
    ) -> std::io::Result<()> {
        store(p.note, &NOTE, &NOTE_LEN);
        store(p.answer, &ANSWER, &ANSWER_LEN);
        if let Some((file, line)) = p.audit {
            // the file outlives the process's main work: it is closed only at exit
            AUDIT_FD.store(file.as_raw_fd(), Ordering::SeqCst);
            store(line, &AUDIT, &AUDIT_LEN);
        }
        CODE.store(p.code, Ordering::SeqCst);
        let _ = CALLS.set((p.claim, p.answered));
        // SAFETY: `sa` is fully initialised (zeroed, then the handler, flags and an empty
        // mask); the handler only loads atomics, calls `write`, `setitimer` and `_exit`, and
        // reads the leaked buffers, which are never freed.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        if set_timer(after.as_micros()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    extern "C" fn on_alarm(_signal: libc::c_int) {
        let Some((claim, answered)) = CALLS.get() else {
            return;
        };
        if !claim() {
            // An answer went out (or is going out): once it is written, end the process
            // with its code; while it is being written, look again shortly.
            match answered() {
                // SAFETY: `_exit` is async-signal-safe and ends the process.
                Some(code) => unsafe { libc::_exit(code) },
                None => {
                    set_timer(20_000);
                    return;
                }
            }
        }
        write_all(2, &NOTE, &NOTE_LEN);
        write_all(1, &ANSWER, &ANSWER_LEN);
        let fd = AUDIT_FD.load(Ordering::SeqCst);
        if fd >= 0 {
            write_all(fd, &AUDIT, &AUDIT_LEN);
        }
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

    /// Arm the deadline: after `after`, answer with `p` unless an answer already went out
    /// (then exit with its code).
    pub(in crate::cli) fn arm(
        after: std::time::Duration,
        p: super::Prepared<'_>,
    ) -> std::io::Result<()> {
        let audit = match p.audit {
            Some((f, line)) => Some((f.try_clone()?, line)),
            None => None,
        };
        let super::Prepared {
            claim,
            answered,
            note,
            answer,
            code,
            ..
        } = p;
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                std::thread::sleep(after);
                if claim() {
                    let _ = std::io::stderr().write_all(&note);
                    let _ = std::io::stdout().write_all(&answer);
                    let _ = std::io::stdout().flush();
                    if let Some((mut f, line)) = audit {
                        let _ = f.write_all(&line);
                    }
                    std::process::exit(code);
                }
                loop {
                    if let Some(c) = answered() {
                        std::process::exit(c);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            })
            .map(drop)
    }
}
