//! Reading a [`Field`] out of an [`Event`] without copying.
//!
//! A field can have several values: `history` has one per message, and a
//! path through JSON arrays (`args.paths`, `args.edits.path`) yields every
//! element. Atoms hold if any value satisfies them.

use crate::event::{Event, Field, PathSeg};
use serde_json::Value;
use std::borrow::Cow;

/// One value of a field.
#[derive(Clone, Copy, Debug)]
pub enum Val<'a> {
    /// A string (from the event or from JSON).
    Str(&'a str),
    /// Any other JSON value (never a string).
    Json(&'a Value),
    /// An integer field.
    Int(i64),
    /// A boolean field.
    Bool(bool),
}

impl<'a> Val<'a> {
    /// The value as text: strings as they are, anything else as JSON.
    pub fn as_text(&self) -> Cow<'a, str> {
        match *self {
            Val::Str(s) => Cow::Borrowed(s),
            Val::Json(v) => Cow::Owned(v.to_string()),
            Val::Int(i) => Cow::Owned(i.to_string()),
            Val::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
        }
    }

    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match *self {
            Val::Str(s) => Value::String(s.to_string()),
            Val::Json(v) => v.clone(),
            Val::Int(i) => Value::from(i),
            Val::Bool(b) => Value::Bool(b),
        }
    }
}

/// Call `f` on each value of `field` until it returns true; returns whether
/// it did. A missing field has no values.
pub fn for_each_value<'a>(
    event: &'a Event,
    field: &Field,
    f: &mut dyn FnMut(Val<'a>) -> bool,
) -> bool {
    let opt = |s: &'a Option<String>, f: &mut dyn FnMut(Val<'a>) -> bool| {
        s.as_deref().is_some_and(|s| f(Val::Str(s)))
    };
    match field {
        Field::Event => f(Val::Str(event.hook.name())),
        Field::Tool => opt(&event.tool, f),
        Field::Args(path) => walk(&event.args, path, f),
        Field::Extra(path) => walk(&event.extra, path, f),
        Field::Cwd => opt(&event.cwd, f),
        Field::SessionId => opt(&event.session_id, f),
        Field::Profile => opt(&event.profile, f),
        Field::UserMessage => opt(&event.user_message, f),
        Field::History => event.history.iter().any(|h| f(Val::Str(h))),
        Field::Model => opt(&event.model, f),
        Field::Platform => opt(&event.platform, f),
        Field::IsFirstTurn => event.is_first_turn.is_some_and(|b| f(Val::Bool(b))),
        Field::SenderId => opt(&event.sender_id, f),
        Field::Result => opt(&event.result, f),
        Field::Command => opt(&event.command, f),
        Field::Output => opt(&event.output, f),
        Field::ExitCode => event.exit_code.is_some_and(|c| f(Val::Int(c))),
        Field::ResponseText => opt(&event.response_text, f),
        // Read through the evaluator's parsed command line, not the event.
        Field::ShellPrograms | Field::PathIn(_) => false,
    }
}

fn walk<'a>(v: &'a Value, path: &[PathSeg], f: &mut dyn FnMut(Val<'a>) -> bool) -> bool {
    match path.split_first() {
        None => match v {
            Value::String(s) => f(Val::Str(s)),
            Value::Array(items) if !items.is_empty() => items.iter().any(|i| walk(i, &[], f)),
            Value::Array(_) => false,
            other => f(Val::Json(other)),
        },
        Some((PathSeg::Key(k), rest)) => match v {
            Value::Object(m) => m.get(k.as_ref()).is_some_and(|v| walk(v, rest, f)),
            Value::Array(items) => items.iter().any(|i| walk(i, path, f)),
            _ => false,
        },
        Some((PathSeg::Index(i), rest)) => match v {
            Value::Array(items) => items.get(*i).is_some_and(|v| walk(v, rest, f)),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(ev: &Event, field: &Field) -> Vec<String> {
        let mut out = Vec::new();
        for_each_value(ev, field, &mut |v| {
            out.push(v.as_text().into_owned());
            false
        });
        out
    }

    #[test]
    fn paths_fan_out_over_arrays() {
        let ev = Event::tool_call(
            "patch",
            json!({"edits": [{"path": "a"}, {"path": "b"}], "n": 3}),
        );
        let f = Field::Args(vec![
            PathSeg::Key("edits".into()),
            PathSeg::Key("path".into()),
        ]);
        assert_eq!(values(&ev, &f), ["a", "b"]);
        let f = Field::Args(vec![
            PathSeg::Key("edits".into()),
            PathSeg::Index(1),
            PathSeg::Key("path".into()),
        ]);
        assert_eq!(values(&ev, &f), ["b"]);
        assert_eq!(
            values(&ev, &Field::Args(vec![PathSeg::Key("n".into())])),
            ["3"]
        );
        assert!(values(&ev, &Field::Args(vec![PathSeg::Key("zz".into())])).is_empty());
    }
}
