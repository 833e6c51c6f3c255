//! The longest answer a bounded JSON schema allows, what it costs in tokens, and the
//! schema shrunk until that cost fits a `max_tokens` ([`fit`]).
//!
//! A grammar-constrained model (llama.cpp's `json_schema`, LiteLLM in front of it) may
//! fill every string to its `maxLength`, every array to its `maxItems` and write every
//! optional property: small models do, until the answer is cut off at `max_tokens` and
//! the thread fails. So the worst case is computed from the schema itself ([`longest`]:
//! whatever properties a schema gains are counted without a list kept by hand), and a
//! schema whose worst case does not fit is scaled down ([`scaled`]) until it does: every
//! `maxItems` and every `maxLength` by the same factor, a string never below
//! [`MIN_STRING`] characters (a due date must still fit whole), an `enum` or a bounded
//! number as it is.
//!
//! Tokens are counted conservatively ([`worst_tokens`]): the longest answer pretty-printed
//! (two spaces a level, as small models write it), its strings filled with plain ASCII
//! letters, one token per [`BYTES_PER_TOKEN`] bytes, rounded up. BPE tokenizers take
//! about 4 bytes a token on such text (SmolLM2 filled the Watcher's schema, 3,700
//! compact bytes, in 866 tokens). A short string — at most [`CODE_CHARS`]: an item's
//! label, a code — is counted a token a character, for a model may fill it
//! with digits and codes, which tokenizers split a character at a time (SmolLM2's
//! answers were cut off at 256 tokens once each finding could cite two labels).
//!
//! What the count does not bound: a model that fills a prose string with a run of digits
//! (tokenizers that split digits singly — SmolLM2's, Qwen's — then spend a token a
//! character; SmolLM2-135M at temperature 0 filled the Librarian's `suggest` with
//! "1234567890…" and was cut off at 256), or writes every character as a `\uXXXX`
//! escape. Counting every character as a token would shrink every real model's answer
//! to a third for a degenerate one's sake; such an answer fails with the typed cut-off
//! error, which names `max_tokens`, and the tick lands without it.
//!
//! A leaf: imports no module of thinker. Must not: know what an answer means.

use serde_json::{Map, Value};

/// Bytes counted as one token.
pub const BYTES_PER_TOKEN: u64 = 3;
/// A string is never scaled below this many characters (or its own `maxLength`, when
/// shorter): an RFC 3339 time (25) or a source's name still fits.
pub const MIN_STRING: u64 = 32;
/// A string bounded to at most this many characters (a label, a code, an id) is counted
/// a token a character. Below [`MIN_STRING`], so such a bound is never scaled and a
/// prose string scaled down is never counted as one.
pub const CODE_CHARS: u64 = MIN_STRING - 1;
/// The scale's unit: [`scaled`] takes a factor in thousandths.
pub const WHOLE: u64 = 1000;

/// A part of a schema without a bound, so its answer has no longest form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the schema's `{path}` has no bound ({what}): give it a maxLength, maxItems, enum or minimum and maximum"
)]
pub struct Unbounded {
    /// Where in the schema, as `properties.findings.items.summary`.
    pub path: String,
    pub what: &'static str,
}

/// The longest answer `schema` allows: every property present, every array at its
/// `maxItems` of its longest item, every string at its `maxLength` of ASCII letters (an
/// `enum` at its longest value), every integer at the bound with the most digits.
pub fn longest(schema: &Value) -> Result<Value, Unbounded> {
    longest_at(schema, "")
}

fn longest_at(schema: &Value, path: &str) -> Result<Value, Unbounded> {
    let unbounded = |what| Unbounded {
        path: path.trim_start_matches('.').to_string(),
        what,
    };
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .max_by_key(|v| v.to_string().len())
            .cloned()
            .ok_or(unbounded("an empty enum"));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    out.insert(name.clone(), longest_at(sub, &format!("{path}.{name}"))?);
                }
            }
            if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Err(unbounded("an object open to more properties"));
            }
            Ok(Value::Object(out))
        }
        Some("array") => {
            let n = bound(schema, "maxItems").ok_or(unbounded("an array without maxItems"))?;
            let items = schema
                .get("items")
                .ok_or(unbounded("an array without items"))?;
            let one = longest_at(items, &format!("{path}.items"))?;
            Ok(Value::Array(vec![one; usize::try_from(n).unwrap_or(0)]))
        }
        Some("string") => {
            let n = bound(schema, "maxLength").ok_or(unbounded("a string without maxLength"))?;
            Ok(Value::String("x".repeat(usize::try_from(n).unwrap_or(0))))
        }
        Some("integer" | "number") => {
            let (lo, hi) = (schema.get("minimum"), schema.get("maximum"));
            match (lo, hi) {
                (Some(lo), Some(hi)) => Ok(if lo.to_string().len() > hi.to_string().len() {
                    lo.clone()
                } else {
                    hi.clone()
                }),
                _ => Err(unbounded("a number without minimum and maximum")),
            }
        }
        Some("boolean") => Ok(Value::Bool(false)),
        Some("null") => Ok(Value::Null),
        _ => Err(unbounded("no type this module knows")),
    }
}

fn bound(schema: &Value, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

/// The tokens `answer`, pretty-printed, is counted at with `code_chars` of its
/// characters in short strings ([`CODE_CHARS`]): its bytes / [`BYTES_PER_TOKEN`],
/// each of those characters a whole token, rounded up.
pub fn tokens_of(answer: &Value, code_chars: u64) -> u64 {
    let bytes = serde_json::to_string_pretty(answer).map_or(u64::MAX, |t| t.len() as u64);
    counted(bytes, code_chars)
}

/// `bytes` printed, of which `code_chars` are characters of short strings, in tokens.
fn counted(bytes: u64, code_chars: u64) -> u64 {
    bytes
        .saturating_add(code_chars.saturating_mul(BYTES_PER_TOKEN - 1))
        .div_ceil(BYTES_PER_TOKEN)
}

/// The tokens of the longest answer `schema` allows.
pub fn worst_tokens(schema: &Value) -> Result<u64, Unbounded> {
    let knobs = knobs(schema);
    match Shape::of(schema, &knobs, "", 0) {
        Some(shape) => {
            let values: Vec<u64> = knobs.iter().map(|k| k.full).collect();
            Ok(counted(shape.len(&values), shape.code_chars(&values)))
        }
        // Unbounded somewhere: `longest` names where.
        None => longest(schema).map(|a| tokens_of(&a, 0)),
    }
}

/// The length of [`longest`]'s answer pretty-printed (serde_json's pretty printer: two
/// spaces a level) as a function of the schema's bounds ([`Knob`]s), so that fitting
/// measures many candidate bounds without building or printing an answer. Equal to the
/// printed length: tested.
#[derive(Debug)]
enum Shape {
    /// An enum, a number, a boolean: its longest printed form.
    Fixed(u64),
    /// A string of the knob's length.
    Str(usize),
    /// An object at a depth: per property its quoted key's length and its shape.
    Obj(u64, Vec<(u64, Shape)>),
    /// An array at a depth: the knob of its count, its item's shape.
    Arr(u64, usize, Box<Shape>),
}

impl Shape {
    /// `schema`'s shape at `pointer` and `depth`; `None` where [`longest`] fails.
    fn of(schema: &Value, knobs: &[Knob], pointer: &str, depth: u64) -> Option<Shape> {
        let knob = |name: &str| {
            let at = format!("{pointer}/{name}");
            knobs.iter().position(|k| k.pointer == at)
        };
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return values
                .iter()
                .map(|v| v.to_string().len() as u64)
                .max()
                .map(Shape::Fixed);
        }
        match schema.get("type").and_then(Value::as_str)? {
            "object" => {
                if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
                    return None;
                }
                let mut props = Vec::new();
                if let Some(map) = schema.get("properties").and_then(Value::as_object) {
                    for (name, sub) in map {
                        let key = Value::String(name.clone()).to_string().len() as u64;
                        let at = format!("{pointer}/properties/{}", escape(name));
                        props.push((key, Shape::of(sub, knobs, &at, depth + 1)?));
                    }
                }
                Some(Shape::Obj(depth, props))
            }
            "array" => {
                let items = schema.get("items")?;
                let at = format!("{pointer}/items");
                Some(Shape::Arr(
                    depth,
                    knob("maxItems")?,
                    Box::new(Shape::of(items, knobs, &at, depth + 1)?),
                ))
            }
            "string" => knob("maxLength").map(Shape::Str),
            "integer" | "number" => longest(schema)
                .ok()
                .map(|v| Shape::Fixed(v.to_string().len() as u64)),
            "boolean" => Some(Shape::Fixed(5)),
            "null" => Some(Shape::Fixed(4)),
            _ => None,
        }
    }

    /// The characters of its short strings ([`CODE_CHARS`]) with the bounds at `values`.
    fn code_chars(&self, values: &[u64]) -> u64 {
        match self {
            Shape::Str(k) if values[*k] <= CODE_CHARS => values[*k],
            Shape::Fixed(_) | Shape::Str(_) => 0,
            Shape::Obj(_, props) => props.iter().map(|(_, sub)| sub.code_chars(values)).sum(),
            Shape::Arr(_, k, item) => values[*k] * item.code_chars(values),
        }
    }

    /// The printed length with the bounds at `values` (one per knob).
    fn len(&self, values: &[u64]) -> u64 {
        match self {
            Shape::Fixed(n) => *n,
            Shape::Str(k) => values[*k] + 2,
            Shape::Obj(_, props) if props.is_empty() => 2,
            // "{" + per property a "\n" (",\n" after the first), its indent,
            // `"key": ` and the value + "\n" + the closing indent + "}".
            Shape::Obj(depth, props) => {
                let inner = 2 * (depth + 1);
                props.iter().fold(2 + 2 * depth, |len, (key, sub)| {
                    len + 2 + inner + key + 2 + sub.len(values)
                })
            }
            Shape::Arr(depth, k, item) => match values[*k] {
                0 => 2,
                n => 2 + 2 * depth + n * (2 + 2 * (depth + 1) + item.len(values)),
            },
        }
    }
}

/// A property's name as a JSON pointer writes it.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// `schema` with every `maxItems` and `maxLength` scaled by `per_mille` / [`WHOLE`]
/// (rounded down; a string not below [`MIN_STRING`] or its own bound). At [`WHOLE`] the
/// schema is unchanged; at 0 every array is empty.
pub fn scaled(schema: &Value, per_mille: u64) -> Value {
    let k = per_mille.min(WHOLE);
    let mut out = schema.clone();
    let knobs = knobs(schema);
    let values: Vec<u64> = knobs.iter().map(|k_| k_.at(k)).collect();
    set(&mut out, &knobs, &values);
    out
}

/// One bound of a schema that fitting may lower: where it is, as written, and how low
/// it may go.
#[derive(Debug, Clone)]
struct Knob {
    /// JSON pointer to the bound (`/properties/findings/maxItems`).
    pointer: String,
    full: u64,
    least: u64,
}

impl Knob {
    /// Its value at `k` thousandths of the schema as written.
    fn at(&self, k: u64) -> u64 {
        (self.full * k / WHOLE).max(self.least)
    }
}

/// Every `maxItems` and `maxLength` of `schema`, in document order (an array's count
/// before its items' bounds, properties in the order written: what comes first is
/// given room first).
fn knobs(schema: &Value) -> Vec<Knob> {
    let mut out = Vec::new();
    knobs_at(schema, "", &mut out);
    out
}

fn knobs_at(schema: &Value, pointer: &str, out: &mut Vec<Knob>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if let Some(n) = map.get("maxItems").and_then(Value::as_u64) {
        out.push(Knob {
            pointer: format!("{pointer}/maxItems"),
            full: n,
            least: 0,
        });
    }
    if let Some(n) = map.get("maxLength").and_then(Value::as_u64) {
        out.push(Knob {
            pointer: format!("{pointer}/maxLength"),
            full: n,
            least: n.min(MIN_STRING),
        });
    }
    if let Some(items) = map.get("items") {
        knobs_at(items, &format!("{pointer}/items"), out);
    }
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            knobs_at(sub, &format!("{pointer}/properties/{}", escape(name)), out);
        }
    }
}

fn set(schema: &mut Value, knobs: &[Knob], values: &[u64]) {
    for (knob, value) in knobs.iter().zip(values) {
        if let Some(v) = schema.pointer_mut(&knob.pointer) {
            *v = Value::from(*value);
        }
    }
}

/// A schema fitted to a `max_tokens`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub schema: Value,
    /// The uniform scale its bounds start from, in thousandths ([`WHOLE`]: the schema as
    /// written; see [`fit`]).
    pub per_mille: u64,
    /// The tokens of its longest answer.
    pub worst: u64,
    /// Whether that fits the `max_tokens` (false only when even the smallest scale
    /// does not: `max_tokens` is too small for the schema).
    pub fits: bool,
}

impl Fitted {
    /// Whether this is the schema as written (nothing was cut).
    pub fn whole(&self) -> bool {
        self.per_mille == WHOLE
    }
}

/// `schema` fitted to `max_tokens`: as written when its longest answer fits them; else
/// every bound at the largest uniform scale that fits, then each bound in document order
/// raised back as far as it still fits (so the room left goes first to what the schema
/// lists first: a thread's findings before its hints). When even the smallest scale
/// does not fit, that scale, marked `fits: false`.
pub fn fit(schema: &Value, max_tokens: u32) -> Result<Fitted, Unbounded> {
    let budget = u64::from(max_tokens);
    let knobs = knobs(schema);
    let Some(shape) = Shape::of(schema, &knobs, "", 0) else {
        // Unbounded somewhere: `longest` names where.
        return Err(longest(schema).err().unwrap_or(Unbounded {
            path: String::new(),
            what: "a part this module cannot measure",
        }));
    };
    let measure = |values: &[u64]| counted(shape.len(values), shape.code_chars(values));
    let at = |k: u64| knobs.iter().map(|n| n.at(k)).collect::<Vec<u64>>();
    let fitted = |values: &[u64], per_mille, fits| {
        let mut out = schema.clone();
        set(&mut out, &knobs, values);
        Fitted {
            schema: out,
            per_mille,
            worst: measure(values),
            fits,
        }
    };
    let whole = at(WHOLE);
    if measure(&whole) <= budget {
        return Ok(fitted(&whole, WHOLE, true));
    }
    let least = at(0);
    if measure(&least) > budget {
        return Ok(fitted(&least, 0, false));
    }
    // The worst case grows with every bound: the largest uniform scale that fits…
    let (mut lo, mut hi) = (0, WHOLE);
    while hi - lo > 1 {
        let mid = lo.midpoint(hi);
        if measure(&at(mid)) <= budget {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // …then each bound, in order, as high as it still fits.
    let mut values = at(lo);
    for i in 0..knobs.len() {
        let (mut low, mut high) = (values[i], knobs[i].full);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            values[i] = mid;
            if measure(&values) <= budget {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        values[i] = low;
    }
    Ok(fitted(&values, lo, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        json!({
            "type": "object",
            "properties": {
                "list": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 100}},
                "n": {"type": "integer", "minimum": -100, "maximum": 10},
                "kind": {"type": "string", "enum": ["a", "longer"]},
                "due": {"type": "string", "maxLength": 25},
                "ok": {"type": "boolean"}
            },
            "additionalProperties": false
        })
    }

    #[test]
    fn the_longest_answer_fills_every_bound() {
        let a = longest(&sample()).unwrap();
        assert_eq!(a["list"].as_array().unwrap().len(), 4);
        assert_eq!(a["list"][0].as_str().unwrap().len(), 100);
        assert_eq!(a["n"], -100);
        assert_eq!(a["kind"], "longer");
        assert_eq!(a["due"].as_str().unwrap().len(), 25);
        assert_eq!(a["ok"], false);
    }

    /// The computed length is the printed one, at every scale and for every shape.
    #[test]
    fn the_worst_case_is_measured_as_printed() {
        let nested = json!({
            "type": "object",
            "properties": {
                "a": {"type": "array", "maxItems": 3, "items": {
                    "type": "object",
                    "properties": {
                        "s": {"type": "string", "maxLength": 7},
                        "e": {"type": "string", "enum": ["x\"y", "é"]},
                        "in": {"type": "array", "maxItems": 2, "items": {"type": "integer", "minimum": -5, "maximum": 100}}
                    },
                    "additionalProperties": false
                }},
                "k\"ey": {"type": "boolean"},
                "empty": {"type": "object", "properties": {}, "additionalProperties": false},
                "none": {"type": "array", "maxItems": 0, "items": {"type": "null"}}
            },
            "additionalProperties": false
        });
        for schema in [sample(), nested] {
            for k in [0, 1, 250, 333, 500, 999, WHOLE] {
                let s = scaled(&schema, k);
                let printed = serde_json::to_string_pretty(&longest(&s).unwrap()).unwrap();
                let knobs = knobs(&s);
                let shape = Shape::of(&s, &knobs, "", 0).unwrap();
                let values: Vec<u64> = knobs.iter().map(|k| k.full).collect();
                assert_eq!(shape.len(&values), printed.len() as u64, "{printed}");
                let codes = short_chars(&longest(&s).unwrap());
                assert_eq!(shape.code_chars(&values), codes, "{printed}");
                assert_eq!(
                    worst_tokens(&s).unwrap(),
                    tokens_of(&longest(&s).unwrap(), codes)
                );
            }
        }
    }

    /// The characters of an answer's short strings that are no enum value (the schemas
    /// here have none of at most [`CODE_CHARS`] letters other than these).
    fn short_chars(answer: &Value) -> u64 {
        match answer {
            Value::String(s) if !["longer", "a", "x\"y", "é"].contains(&s.as_str()) => {
                let n = s.chars().count() as u64;
                if n <= CODE_CHARS { n } else { 0 }
            }
            Value::Array(items) => items.iter().map(short_chars).sum(),
            Value::Object(map) => map.values().map(short_chars).sum(),
            _ => 0,
        }
    }

    #[test]
    fn an_unbounded_part_is_named() {
        for (schema, path) in [
            (json!({"type": "string"}), ""),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "maxLength": 3}}}, "additionalProperties": false}),
                "a",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "maxItems": 2, "items": {"type": "string"}}}, "additionalProperties": false}),
                "a.items",
            ),
            (
                json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "additionalProperties": false}),
                "n",
            ),
            (json!({"type": "object", "properties": {}}), ""),
        ] {
            assert_eq!(longest(&schema).unwrap_err().path, path, "{schema}");
        }
    }

    #[test]
    fn scaling_keeps_short_strings_and_enums() {
        let s = scaled(&sample(), 500);
        assert_eq!(s["properties"]["list"]["maxItems"], 2);
        assert_eq!(s["properties"]["list"]["items"]["maxLength"], 50);
        assert_eq!(
            s["properties"]["due"]["maxLength"], 25,
            "below MIN_STRING: kept"
        );
        let s = scaled(&sample(), 100);
        assert_eq!(s["properties"]["list"]["maxItems"], 0);
        assert_eq!(s["properties"]["list"]["items"]["maxLength"], MIN_STRING);
        assert_eq!(scaled(&sample(), WHOLE), sample());
    }

    fn schema_bound(schema: &Value, pointer: &str) -> u64 {
        schema.pointer(pointer).and_then(Value::as_u64).unwrap()
    }

    #[test]
    fn fit_takes_the_largest_scale_that_fits() {
        let whole = worst_tokens(&sample()).unwrap();
        let f = fit(&sample(), u32::try_from(whole).unwrap()).unwrap();
        assert_eq!((f.per_mille, f.fits), (WHOLE, true));
        for budget in [60, 80, 100, 150] {
            let f = fit(&sample(), budget).unwrap();
            assert!(f.fits, "{budget}");
            assert!(f.worst <= u64::from(budget), "{budget}: {}", f.worst);
            assert_eq!(f.worst, worst_tokens(&f.schema).unwrap());
            // No bound can be raised by one and still fit: the room is used.
            for knob in knobs(&f.schema) {
                let full = schema_bound(&sample(), &knob.pointer);
                if knob.full < full {
                    let mut more = f.schema.clone();
                    *more.pointer_mut(&knob.pointer).unwrap() = Value::from(knob.full + 1);
                    let over = worst_tokens(&more).unwrap();
                    assert!(
                        over > u64::from(budget),
                        "{budget}: {} could grow",
                        knob.pointer
                    );
                }
            }
        }
        // What comes first gets the room first: the list before the later strings.
        let f = fit(&sample(), 80).unwrap();
        assert!(f.schema["properties"]["list"]["maxItems"].as_u64().unwrap() >= 1);
        let f = fit(&sample(), 5).unwrap();
        assert!(!f.fits);
        assert_eq!(f.per_mille, 0);
    }
}
