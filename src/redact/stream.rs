//! Streaming redaction with bounded memory.
//!
//! The reader is consumed into a buffer laid out as `[context | chunk | lookahead]`:
//! - `chunk` ([`STREAM_CHUNK`], 64 KiB by default) is what one round commits (writes out);
//! - `lookahead` = `overlap` = [`Redactor::stream_overlap`] (the largest window any rule needs:
//!   its maximum match length, or 2 KiB for unbounded rules; never more than
//!   [`STREAM_MAX_OVERLAP`]) is scanned but not committed, so a secret that starts in the chunk
//!   and straddles the boundary is seen whole;
//! - `context` (also `overlap` bytes, already written) is kept so that a match whose key part
//!   (`password = "`) lies before the boundary and whose secret lies after it is still found,
//!   and `\b` / look-behind see the real preceding bytes.
//!
//! A match of an unbounded rule (a value of any length: `KEY=<3 KiB of base64>`) can run past
//! the lookahead. Text mode grows such a window up to [`MAX_WINDOW`] bytes per side, and gives
//! a rule whose matches keep to a few lines the whole of those lines (up to [`LINE_WINDOW`]
//! bytes per side: `token: "<10 KiB>"` is found only once its closing quote is in the window).
//! When the buffer's end may have cut such a match or window starting in the part the round
//! commits, the round reads on (at once to [`LINE_WINDOW`] past the commit point, then
//! doubling, up to [`STREAM_MAX_LOOKAHEAD`] more bytes) and runs again, so the stream sees
//! the whole value as text mode does (and redacts its tail too). A cut that starts in the
//! lookahead needs nothing: the next round, which keeps it as context, sees it again.
//!
//! A finding is applied in the round in which its secret *starts* inside the committed region;
//! the commit point is extended to the end of that finding. Memory is therefore bounded by
//! `chunk + 2 * overlap + STREAM_MAX_LOOKAHEAD` bytes of input plus the output of one round,
//! independent of the stream's length. A table whose header names a credential column and
//! whose rows go on past a round keeps its header line (at most `table::MAX_HEADER` bytes)
//! in front of the next round's context, so that round reads the rows with their header
//! (`table::open_header`); the context's first bytes are then that copy, never written.
//! Finding spans are offsets in the whole stream.
//! `Numbered` replacements are consistent across the whole stream (the map holds value
//! hashes, not values).
//!
//! `Withhold` in a stream: bytes already written cannot be recalled, so from the round that
//! finds the withheld content on, the message is written once and nothing else is; the rest
//! of the input is still read so that the findings list is complete.
//!
//! Findings are collected only when the caller asks for them (`--report`); otherwise only
//! counted, so memory does not grow with the number of findings.

use super::{
    floor_char, KnownValues, Numbering, Redactor, Replacement, LINE_WINDOW, MAX_WINDOW,
    UNBOUNDED_WINDOW,
};
use std::io::{self, Read, Write};

/// Bytes committed (written out) per streaming round.
pub const STREAM_CHUNK: usize = 64 * 1024;
/// Largest overlap kept between rounds, per side.
pub const STREAM_MAX_OVERLAP: usize = 16 * 1024;
/// How far past the usual lookahead a round reads, at most, when the buffer's end cuts a
/// match of an unbounded rule: as far as text mode grows a window ([`MAX_WINDOW`], doubling
/// from the rule's side: less than `4 × MAX_WINDOW` in all) plus the first window's reach.
pub const STREAM_MAX_LOOKAHEAD: usize = 4 * MAX_WINDOW + 2 * UNBOUNDED_WINDOW;

fn fill<R: Read>(r: &mut R, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    // returns true at EOF
    while buf.len() < want {
        let old = buf.len();
        buf.resize(want, 0);
        match r.read(&mut buf[old..]) {
            Ok(0) => {
                buf.truncate(old);
                return Ok(true);
            }
            Ok(n) => buf.truncate(old + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    Ok(false)
}

pub(super) fn redact_stream<R: Read, W: Write>(
    rd: &Redactor,
    mut r: R,
    mut w: W,
    chunk: usize,
    known: Option<&KnownValues>,
    mut findings: Option<&mut Vec<super::Finding>>,
) -> io::Result<usize> {
    let overlap = rd
        .stream_overlap()
        .max(known.map_or(0, |k| k.longest() + 1));
    let mut buf: Vec<u8> = Vec::with_capacity(chunk + 2 * overlap + 8);
    let mut out: Vec<u8> = Vec::with_capacity(chunk + overlap);
    let mut ctx = 0usize; // buf[..ctx] was already written
    let mut base = 0usize; // stream offset of buf[0]
    let mut eof = false;
    let mut count = 0usize;
    let mut numbering = Numbering::default();
    let mut withheld = false;
    // whether the last round read past its lookahead
    let mut read_on = false;
    loop {
        if !eof {
            eof = fill(&mut r, &mut buf, ctx + chunk + overlap)?;
        }
        let hi = buf.len();
        if hi == ctx {
            break;
        }
        let commit = if eof {
            hi
        } else {
            floor_char(&buf, hi - overlap).max(ctx + 1)
        };
        // the same fixed point as text mode, over the whole buffer (see `Redactor::fixed_point`);
        // where the buffer's end cut an unbounded rule's match or a line-clamped window that
        // starts before the commit point, text mode would have searched on: read further
        // (a whole window past the commit point, then doubling) and run the round again, up
        // to where text mode stops
        let limit = commit + overlap + STREAM_MAX_LOOKAHEAD;
        if read_on && !eof {
            // the last round had to (long lines, most likely): read on now, not after a run
            eof = fill(&mut r, &mut buf, commit + overlap + LINE_WINDOW)?;
        }
        read_on = false;
        let cands = loop {
            let found = rd.fixed_point(&buf, known);
            if eof || found.cut_from.is_none_or(|p| p >= commit) || buf.len() >= limit {
                break found.cands;
            }
            read_on = true;
            let want = (buf.len() + 2 * (buf.len() - commit))
                .max(commit + overlap + LINE_WINDOW)
                .min(limit);
            eof = fill(&mut r, &mut buf, want)?;
        };
        let hi = buf.len();
        let mut last = ctx;
        let mut out_end = commit;
        out.clear();
        for mut c in cands {
            if c.end <= ctx {
                continue;
            }
            // written already up to ctx; only a match the fixed point widened (a long chain)
            // reaches back past it, and its unwritten part is still replaced
            c.start = c.start.max(ctx);
            if c.start >= commit {
                break;
            }
            count += 1;
            if let Some(f) = findings.as_deref_mut() {
                f.push(rd.finding(c, base));
            }
            if withheld {
                continue;
            }
            out.extend_from_slice(&buf[last..c.start]);
            if let Some(Replacement::Withhold(msg)) = rd.replacement_of(c.rule) {
                withheld = true;
                out.clear();
                out.extend_from_slice(msg.as_bytes());
                w.write_all(&out)?;
                out.clear();
                continue;
            }
            rd.replacement(c, &buf[c.start..c.end], &mut numbering, &mut out);
            last = c.end;
            out_end = out_end.max(c.end);
        }
        if !withheld {
            out.extend_from_slice(&buf[last.min(out_end)..out_end]);
            w.write_all(&out)?;
        }
        if eof && out_end >= hi {
            break;
        }
        let keep_from = floor_char(&buf, out_end.saturating_sub(overlap));
        // a table still open here: its header line is kept in front of the context (the
        // rows between are dropped), so the next round reads its rows with it (`table.rs`)
        let header = match rd.reads_tables {
            true => super::table::open_header(&buf, out_end, out_end).filter(|&h| h < keep_from),
            false => None,
        };
        let cut = match header {
            Some(h) => {
                let he = h + memchr::memchr(b'\n', &buf[h..keep_from]).unwrap_or(keep_from - h);
                let ls = memchr::memrchr(b'\n', &buf[he..keep_from]).map_or(he, |k| he + k) + 1;
                let hl = he + 1 - h;
                buf.copy_within(h..h + hl, ls - hl);
                ls - hl
            }
            None => keep_from,
        };
        buf.drain(..cut);
        base += cut;
        ctx = out_end - cut;
    }
    w.flush()?;
    Ok(count)
}
