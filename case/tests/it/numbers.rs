//! Element values as fixtures write them ([`Num`]): every JSON form a value may take, and the
//! forms it may not.

use bcast_case::Num;

fn num(json: &str) -> Result<Num, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

#[test]
fn every_written_form_reads_as_its_value() {
    assert_eq!(num("true"), Ok(Num::Bool(true)));
    assert_eq!(num("-3"), Ok(Num::Int(-3)));
    assert_eq!(num("9223372036854775807"), Ok(Num::Int(i64::MAX)));
    assert_eq!(num("-9223372036854775808"), Ok(Num::Int(i64::MIN)));
    // Above i64's range a JSON integer is a float, as JSON numbers are.
    assert_eq!(
        num("9223372036854775808"),
        Ok(Num::Float(9223372036854775808.0))
    );
    assert_eq!(num("2.5"), Ok(Num::Float(2.5)));
    assert!(matches!(num("-0.0"), Ok(Num::Float(z)) if z == 0.0 && z.is_sign_negative()));
    assert!(matches!(num("\"nan\""), Ok(Num::Float(f)) if f.is_nan()));
    assert_eq!(num("\"-inf\""), Ok(Num::Float(f64::NEG_INFINITY)));
    // A complex pair: each part any number or a float's name.
    assert_eq!(num("[1, \"inf\"]"), Ok(Num::Complex(1.0, f64::INFINITY)));
    assert_eq!(
        num("[-0.5, 18446744073709551615]"),
        Ok(Num::Complex(-0.5, 2f64.powi(64)))
    );
}

#[test]
fn other_forms_are_errors_that_say_what_was_expected() {
    let text = num("\"Infinity\"").unwrap_err();
    assert!(text.contains("got \"Infinity\""), "{text}");
    for bad in [
        "null",
        "{}",
        "[]",
        "[1]",
        "[1, 2, 3]",
        "[true, 1]",
        "[[1, 2], 3]",
        "[1, \"x\"]",
    ] {
        assert!(num(bad).is_err(), "{bad} read as {:?}", num(bad));
    }
    let short = num("[1]").unwrap_err();
    assert!(short.contains("invalid length 1"), "{short}");
    let long = num("[1, 2, 3]").unwrap_err();
    assert!(long.contains("invalid length 3"), "{long}");
}
