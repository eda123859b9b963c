//! Deterministic embeddings: a text's vector is a sum of hashed features (its lower-cased
//! words, and pairs of neighbouring words at half weight), each adding ±1 to a few dimensions
//! picked by its hash, then normalised. The same text always gets the same vector on any
//! machine, texts that share words are closer (by cosine) than texts that share none, and a
//! shorter Matryoshka vector is the start of the full one, as with the real models: a
//! feature's first touches land in the first 128 dimensions, the next ones in the first 256,
//! 512, ..., so every prefix a request may ask for carries every feature.
//!
//! Vectors go out as the API writes them: `base64_int8`, one signed byte per dimension scaled
//! so the largest component is ±127 (unnormalised, compared by cosine), or `base64_binary`,
//! one bit per dimension (set when the component is positive), packed high bit first.

use crate::http::encoding::base64;
use crate::sonar::wire::embeddings::EncodingFormat;

/// Dimensions each feature adds to.
const TOUCHES: usize = 8;

/// The prefix each touch lands in: the first two in the first 128 dimensions (the shortest
/// vector a request may ask for), then 256, 512, 1024, 2048, then anywhere.
const PREFIXES: [usize; TOUCHES] = [128, 128, 256, 256, 512, 1024, 2048, usize::MAX];

/// The amplitude of a text's dense background.
const BACKGROUND: f32 = 0.02;

/// How much a chunk of a document leans towards the document as a whole (contextualized
/// embeddings).
const CONTEXT_WEIGHT: f32 = 0.35;

/// The vector of `text` with the model's `full` dimensions, cut to `dimensions`.
pub(crate) fn vector(text: &str, full: u32, dimensions: u32) -> Vec<f32> {
    let mut v = features(text, full as usize);
    v.truncate(dimensions as usize);
    normalise(&mut v);
    v
}

/// The vectors of a document's chunks: each chunk's own, leaning towards the document's mean.
pub(crate) fn contextual_vectors(chunks: &[String], full: u32, dimensions: u32) -> Vec<Vec<f32>> {
    let own: Vec<Vec<f32>> = chunks.iter().map(|c| vector(c, full, dimensions)).collect();
    let mut mean = vec![0.0f32; dimensions as usize];
    for v in &own {
        for (m, x) in mean.iter_mut().zip(v) {
            *m += x;
        }
    }
    normalise(&mut mean);
    own.into_iter()
        .map(|mut v| {
            for (x, m) in v.iter_mut().zip(&mean) {
                *x += CONTEXT_WEIGHT * m;
            }
            normalise(&mut v);
            v
        })
        .collect()
}

/// A vector written as `format` says.
pub(crate) fn encode(v: &[f32], format: EncodingFormat) -> String {
    match format {
        EncodingFormat::Base64Int8 => {
            let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let scale = if largest > 0.0 { 127.0 / largest } else { 0.0 };
            let bytes: Vec<u8> = v
                .iter()
                .map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8 as u8)
                .collect();
            base64(&bytes)
        }
        EncodingFormat::Base64Binary => {
            let mut bytes = vec![0u8; v.len().div_ceil(8)];
            for (i, x) in v.iter().enumerate() {
                if *x > 0.0 {
                    bytes[i / 8] |= 0x80 >> (i % 8);
                }
            }
            base64(&bytes)
        }
    }
}

fn features(text: &str, dimensions: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; dimensions.max(1)];
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut add = |feature: &str, weight: f32| {
        let mut h = fnv1a(feature.as_bytes());
        for prefix in PREFIXES {
            h = splitmix(h);
            let index = (h % prefix.min(v.len()) as u64) as usize;
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            v[index] += sign * weight;
        }
    };
    for word in &words {
        add(word, 1.0);
    }
    for pair in words.windows(2) {
        add(&format!("{} {}", pair[0], pair[1]), 0.5);
    }
    if words.is_empty() {
        // Punctuation only: the text itself is the one feature.
        add(text, 1.0);
    }
    // A faint dense background, the text's own, so every dimension has a sign (what
    // `base64_binary` writes) without moving cosine similarities.
    let mut h = fnv1a(text.as_bytes()) ^ 0x5bd1_e995;
    for x in &mut v {
        h = splitmix(h);
        *x += ((h >> 11) as f32 / (1u64 << 53) as f32 - 0.5) * BACKGROUND;
    }
    v
}

fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

/// FNV-1a, 64 bits: stable across machines and releases, unlike the standard library's hasher.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64: spreads one hash into a sequence of well-mixed ones.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn the_same_text_gets_the_same_vector_and_similar_texts_are_closer() {
        let a = vector("The cat sat on the mat", 1024, 1024);
        assert_eq!(a, vector("The cat sat on the mat", 1024, 1024));
        let similar = vector("A cat sat on a mat", 1024, 1024);
        let unrelated = vector("Quarterly revenue grew in Europe", 1024, 1024);
        assert!(cosine(&a, &similar) > cosine(&a, &unrelated) + 0.3);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn a_matryoshka_vector_starts_like_the_full_one() {
        let full = vector("solar power", 2560, 2560);
        let short = vector("solar power", 2560, 256);
        assert_eq!(short.len(), 256);
        let start_norm = full[..256].iter().map(|x| x * x).sum::<f32>().sqrt();
        for (s, f) in short.iter().zip(&full) {
            assert!((s - f / start_norm).abs() < 1e-5);
        }
    }

    #[test]
    fn int8_is_one_byte_per_dimension_and_binary_one_bit() {
        let v = vector("hello world", 1024, 128);
        let int8 = crate::http::encoding::base64_decode(&encode(&v, EncodingFormat::Base64Int8));
        let int8 = int8.expect("base64");
        assert_eq!(int8.len(), 128);
        assert_eq!(
            int8.iter().map(|b| (*b as i8).unsigned_abs()).max(),
            Some(127)
        );
        let bits = crate::http::encoding::base64_decode(&encode(&v, EncodingFormat::Base64Binary));
        assert_eq!(bits.map(|b| b.len()), Some(16));
    }

    #[test]
    fn chunks_of_one_document_lean_towards_each_other() {
        let chunks = ["Mars rover finds water", "Quarterly revenue grew"].map(String::from);
        let contextual = contextual_vectors(&chunks, 1024, 1024);
        let plain: Vec<Vec<f32>> = chunks.iter().map(|c| vector(c, 1024, 1024)).collect();
        assert!(cosine(&contextual[0], &contextual[1]) > cosine(&plain[0], &plain[1]));
    }
}
