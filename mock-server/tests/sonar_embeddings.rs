//! `POST /v1/embeddings` and `POST /v1/contextualizedembeddings`: base64 vectors of the real
//! models' dimensions (`base64_int8` by default, `base64_binary` on request), Matryoshka
//! `dimensions`, the same vector for the same text, closer vectors for similar texts, and the
//! usage and cost of the input tokens.

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::ALICE;

/// A `base64_int8` vector, decoded.
fn int8(embedding: &Value) -> Vec<i8> {
    let text = embedding.as_str().unwrap_or_default();
    decode(text).into_iter().map(|b| b as i8).collect()
}

/// Standard base64 (the alphabet with `+` and `/`, padded).
fn decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|c| *c != b'=') {
        let value = ALPHABET.iter().position(|a| *a == c).expect("base64") as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}

fn cosine(a: &[i8], b: &[i8]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[i8]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

async fn embed(mock: &Mock, body: Value) -> crate::common::Reply {
    mock.sonar_post("/v1/embeddings", ALICE, body).await
}

#[tokio::test(start_paused = true)]
async fn each_text_gets_a_base64_int8_vector_of_the_models_dimensions() {
    let mock = Mock::new();
    for (model, dimensions) in [("pplx-embed-v1-0.6b", 1024), ("pplx-embed-v1-4b", 2560)] {
        let reply = embed(
            &mock,
            json!({"model": model, "input": ["one text", "and another"]}),
        )
        .await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        assert_eq!(reply.body["object"], "list");
        assert_eq!(reply.body["model"], model);
        let data = reply.body["data"].as_array().expect("data");
        assert_eq!(data.len(), 2);
        for (i, item) in data.iter().enumerate() {
            assert_eq!(item["object"], "embedding");
            assert_eq!(item["index"], i);
            let vector = int8(&item["embedding"]);
            assert_eq!(vector.len(), dimensions);
            assert_eq!(vector.iter().map(|x| x.unsigned_abs()).max(), Some(127));
        }
        let usage = &reply.body["usage"];
        assert_eq!(usage["prompt_tokens"], 5, "a token per four characters");
        assert_eq!(usage["total_tokens"], 5);
        assert_eq!(usage["cost"]["currency"], "USD");
        assert!(usage["cost"]["total_cost"].as_f64() > Some(0.0));
    }
    let one = embed(
        &mock,
        json!({"model": "pplx-embed-v1-0.6b", "input": "a single string"}),
    )
    .await;
    assert_eq!(one.body["data"].as_array().map(Vec::len), Some(1));
}

#[tokio::test(start_paused = true)]
async fn the_same_text_gets_the_same_vector_and_similar_texts_are_closer() {
    let mock = Mock::new();
    let texts = [
        "The rover found signs of ancient water on Mars",
        "Signs of ancient water were found on Mars by the rover",
        "Quarterly revenue grew faster in Europe than in Asia",
    ];
    let first = embed(&mock, json!({"model": "pplx-embed-v1-4b", "input": texts})).await;
    let again = embed(
        &mock,
        json!({"model": "pplx-embed-v1-4b", "input": texts[0]}),
    )
    .await;
    let v: Vec<Vec<i8>> = (0..3)
        .map(|i| int8(&first.body["data"][i]["embedding"]))
        .collect();
    assert_eq!(
        int8(&again.body["data"][0]["embedding"]),
        v[0],
        "deterministic"
    );
    let similar = cosine(&v[0], &v[1]);
    let unrelated = cosine(&v[0], &v[2]);
    assert!(similar > 0.5 && unrelated < 0.2, "{similar} vs {unrelated}");
}

#[tokio::test(start_paused = true)]
async fn dimensions_cut_the_vector_and_base64_binary_packs_one_bit_per_dimension() {
    let mock = Mock::new();
    let full = embed(
        &mock,
        json!({"model": "pplx-embed-v1-4b", "input": "heat pumps"}),
    )
    .await;
    let short = embed(
        &mock,
        json!({"model": "pplx-embed-v1-4b", "input": "heat pumps", "dimensions": 256}),
    )
    .await;
    let short = int8(&short.body["data"][0]["embedding"]);
    assert_eq!(short.len(), 256);
    let start = &int8(&full.body["data"][0]["embedding"])[..256];
    assert!(
        cosine(&short, start) > 0.99,
        "a Matryoshka vector is the start of the full one"
    );

    let binary = embed(
        &mock,
        json!({"model": "pplx-embed-v1-0.6b", "input": "heat pumps",
        "dimensions": 128, "encoding_format": "base64_binary"}),
    )
    .await;
    let bits = decode(
        binary.body["data"][0]["embedding"]
            .as_str()
            .unwrap_or_default(),
    );
    assert_eq!(bits.len(), 16);
    let signs = embed(
        &mock,
        json!({"model": "pplx-embed-v1-0.6b", "input": "heat pumps", "dimensions": 128}),
    )
    .await;
    let signs = int8(&signs.body["data"][0]["embedding"]);
    // A bit is set where the component is positive (an int8 of 0 may be either).
    for (i, x) in signs.iter().enumerate().filter(|(_, x)| **x != 0) {
        let bit = bits[i / 8] & (0x80 >> (i % 8)) != 0;
        assert_eq!(bit, *x > 0, "dimension {i}");
    }
    let ones: u32 = bits.iter().map(|b| b.count_ones()).sum();
    assert!(ones > 20 && ones < 108, "{ones} of 128 bits set");
}

#[tokio::test(start_paused = true)]
async fn contextualized_embeddings_answer_one_list_of_chunk_vectors_per_document() {
    let mock = Mock::new();
    let documents = json!([
        [
            "Curiosity begins in childhood.",
            "It drives us to explore.",
            "Science starts with it."
        ],
        ["The Curiosity rover explores Mars."]
    ]);
    let reply = mock
        .sonar_post(
            "/v1/contextualizedembeddings",
            ALICE,
            json!({"model": "pplx-embed-context-v1-4b", "input": documents}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["object"], "list");
    let data = reply.body["data"].as_array().expect("data");
    assert_eq!(data.len(), 2);
    for (d, (document, chunks)) in data.iter().zip([3, 1]).enumerate() {
        assert_eq!(document["object"], "list");
        assert_eq!(document["index"], d);
        let vectors = document["data"].as_array().expect("chunks");
        assert_eq!(vectors.len(), chunks);
        for (c, chunk) in vectors.iter().enumerate() {
            assert_eq!(chunk["index"], c);
            assert_eq!(int8(&chunk["embedding"]).len(), 2560);
        }
    }
    assert!(reply.body["usage"]["prompt_tokens"].as_u64() > Some(20));
}
