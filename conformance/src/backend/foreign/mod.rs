//! In-process adapters for other Rust tensor crates, each behind its cargo feature. They share
//! the reading of a case ([`call`]) and the writing of results ([`typed`]); each crate's
//! module maps what that crate can express, and a panic inside it is caught and reported as a
//! failure of the case.

pub mod call;
#[cfg(feature = "candle")]
pub mod candle;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod typed;

/// The ndarray backend's constructor, when the `ndarray` feature is on.
#[cfg(feature = "ndarray")]
pub const NDARRAY: Option<super::registry::Make> = Some(|| Ok(Box::new(ndarray::NdarrayBackend)));
/// The ndarray backend's constructor, when the `ndarray` feature is on.
#[cfg(not(feature = "ndarray"))]
pub const NDARRAY: Option<super::registry::Make> = None;

/// The candle backend's constructor, when the `candle` feature is on.
#[cfg(feature = "candle")]
pub const CANDLE: Option<super::registry::Make> = Some(|| Ok(Box::new(candle::CandleBackend)));
/// The candle backend's constructor, when the `candle` feature is on.
#[cfg(not(feature = "candle"))]
pub const CANDLE: Option<super::registry::Make> = None;
