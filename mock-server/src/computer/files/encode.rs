//! Small encoders for the binary files the mock serves, written out by hand so the mock needs no
//! image or archive crate: a PNG of one colour, a baseline JPEG of one 8×8 block, and a ZIP of
//! stored (uncompressed) entries. Each follows its format's specification closely enough that a
//! browser, an image viewer or `unzip` opens it.

/// A 32×32 PNG: a teal square, as a thumbnail stands in for an image Computer made.
pub(super) fn png() -> Vec<u8> {
    const SIDE: u32 = 32;
    // Each scanline: filter type 0 (none), then SIDE teal pixels.
    let mut row = vec![0u8];
    row.extend([0x20, 0x80, 0x8d].repeat(SIDE as usize));
    let raw = row.repeat(SIDE as usize);
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&SIDE.to_be_bytes());
    ihdr.extend_from_slice(&SIDE.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    png_chunk(&mut out, b"IEND", &[]);
    out
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&len32(data.len()).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// An 8×8 baseline JPEG (JFIF) of one teal colour: one MCU whose three blocks carry only a DC
/// coefficient. Quantisation is all ones; the DC Huffman table has the two categories used
/// (8 and 9), the AC table only end-of-block.
pub(super) fn jpeg() -> Vec<u8> {
    let mut out = vec![0xff, 0xd8];
    // APP0 JFIF 1.01, no density, no thumbnail.
    segment(
        &mut out,
        0xe0,
        &[b'J', b'F', b'I', b'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
    );
    let mut dqt = vec![0u8];
    dqt.extend_from_slice(&[1; 64]);
    segment(&mut out, 0xdb, &dqt);
    // SOF0: 8-bit, 8×8, three components (Y, Cb, Cr), 1×1 sampling, quantisation table 0.
    segment(
        &mut out,
        0xc0,
        &[8, 0, 8, 0, 8, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0],
    );
    // DHT: DC table 0 with codes 00 → category 8, 01 → category 9 (two codes of length 2).
    let mut dc = vec![0x00, 0, 2];
    dc.extend_from_slice(&[0; 14]);
    dc.extend_from_slice(&[8, 9]);
    segment(&mut out, 0xc4, &dc);
    // DHT: AC table 0 with code 0 → end of block.
    let mut ac = vec![0x10, 1];
    ac.extend_from_slice(&[0; 15]);
    ac.push(0x00);
    segment(&mut out, 0xc4, &ac);
    segment(&mut out, 0xda, &[3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]);
    // Teal (0x20, 0x80, 0x8d) is Y 101, Cb 151, Cr 79: level-shifted DC of an 8×8 block is
    // 8 × (value − 128) = −216, 184, −392. Each block: DC category code, the value's bits
    // (negative values in ones' complement), then end-of-block.
    let mut bits = BitWriter::default();
    for (code, category, value) in [(0b00, 8, -216i32), (0b00, 8, 184), (0b01, 9, -392)] {
        bits.put(code, 2);
        let magnitude = if value < 0 {
            value + (1 << category) - 1
        } else {
            value
        };
        bits.put(u32::try_from(magnitude).unwrap_or(0), category);
        bits.put(0, 1);
    }
    out.extend_from_slice(&bits.finish());
    out.extend_from_slice(&[0xff, 0xd9]);
    out
}

fn segment(out: &mut Vec<u8>, marker: u8, data: &[u8]) {
    out.extend_from_slice(&[0xff, marker]);
    let len = u16::try_from(data.len() + 2).unwrap_or(u16::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(data);
}

/// Entropy-coded bits, most significant first, with 0xFF stuffed and the end padded with ones.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    current: u8,
    used: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, count: u32) {
        for i in (0..count).rev() {
            self.current = (self.current << 1) | u8::from((value >> i) & 1 == 1);
            self.used += 1;
            if self.used == 8 {
                self.flush();
            }
        }
    }

    fn flush(&mut self) {
        self.bytes.push(self.current);
        if self.current == 0xff {
            self.bytes.push(0);
        }
        self.current = 0;
        self.used = 0;
    }

    fn finish(mut self) -> Vec<u8> {
        while self.used != 0 {
            self.put(1, 1);
        }
        self.bytes
    }
}

/// A ZIP archive of `entries` (name, bytes), stored without compression (APPNOTE 6.3: local
/// headers, then the central directory and its end record), dated 1980-01-01.
pub(super) fn zip(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    const DOS_DATE: u16 = 0x0021; // 1980-01-01
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = len32(out.len());
        let crc = crc32(data);
        let size = len32(data.len());
        let name_len = u16::try_from(name.len()).unwrap_or(u16::MAX);
        let common = |buf: &mut Vec<u8>| {
            buf.extend_from_slice(&20u16.to_le_bytes()); // version needed: 2.0
            buf.extend_from_slice(&0u16.to_le_bytes()); // flags
            buf.extend_from_slice(&0u16.to_le_bytes()); // method: stored
            buf.extend_from_slice(&0u16.to_le_bytes()); // time
            buf.extend_from_slice(&DOS_DATE.to_le_bytes());
            buf.extend_from_slice(&crc.to_le_bytes());
            buf.extend_from_slice(&size.to_le_bytes());
            buf.extend_from_slice(&size.to_le_bytes());
            buf.extend_from_slice(&name_len.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes()); // extra field length
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        common(&mut central);
        central.extend_from_slice(&[0; 8]); // comment length, disk, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(entries.len()).unwrap_or(u16::MAX);
    let central_offset = len32(out.len());
    let central_size = len32(central.len());
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // this disk, the directory's disk
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&central_size.to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

/// A zlib stream of `data` in uncompressed ("stored") deflate blocks (RFC 1950, RFC 1951 §3.2.4).
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// A length as the 32-bit field the formats use (the mock's files are far smaller).
fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// CRC-32 (ISO-HDLC), as PNG and ZIP use it.
pub(super) fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_and_adler32_match_their_check_values() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn the_png_has_its_signature_a_32_pixel_header_and_checked_chunks() {
        let png = png();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..24], &[0, 0, 0, 32, 0, 0, 0, 32]);
        let ihdr_crc = u32::from_be_bytes([png[29], png[30], png[31], png[32]]);
        assert_eq!(ihdr_crc, crc32(&png[12..29]));
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82]));
    }

    #[test]
    fn the_jpeg_starts_with_soi_and_jfif_ends_with_eoi_and_its_segments_chain() {
        let jpeg = jpeg();
        assert_eq!(&jpeg[..4], &[0xff, 0xd8, 0xff, 0xe0]);
        assert_eq!(&jpeg[6..11], b"JFIF\0");
        assert!(jpeg.ends_with(&[0xff, 0xd9]));
        // Walk the marker segments up to the scan: each length lands on the next marker.
        let mut at = 2;
        let mut markers = Vec::new();
        while jpeg[at] == 0xff && jpeg[at + 1] != 0xda {
            markers.push(jpeg[at + 1]);
            at += 2 + usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]));
        }
        assert_eq!(markers, [0xe0, 0xdb, 0xc0, 0xc4, 0xc4]);
        assert_eq!(jpeg[at + 1], 0xda, "the scan follows the tables");
    }

    #[test]
    fn the_jpeg_scan_codes_each_blocks_dc_value_then_end_of_block() {
        let mut bits = BitWriter::default();
        bits.put(0b101, 3);
        assert_eq!(bits.finish(), [0b1011_1111]);
        let mut stuffed = BitWriter::default();
        stuffed.put(0xff, 8);
        assert_eq!(
            stuffed.finish(),
            [0xff, 0x00],
            "a 0xFF byte is followed by 0x00"
        );
        // Y: 00 00100111 0 · Cb: 00 10111000 0 · Cr: 01 001110111 0, padded with ones.
        let jpeg = jpeg();
        let scan = &jpeg[jpeg.len() - 2 - 5..jpeg.len() - 2];
        assert_eq!(scan, [0x09, 0xc5, 0xc1, 0x3b, 0xbf], "{scan:02x?}");
    }

    #[test]
    fn a_zip_lists_each_entry_in_its_central_directory_with_its_crc() {
        let zip = zip(&[("a.txt", b"hello".to_vec()), ("b/c.xml", b"<c/>".to_vec())]);
        assert_eq!(&zip[..4], b"PK\x03\x04");
        let end = zip.len() - 22;
        assert_eq!(&zip[end..end + 4], b"PK\x05\x06");
        assert_eq!(u16::from_le_bytes([zip[end + 10], zip[end + 11]]), 2);
        let central = usize::try_from(u32::from_le_bytes([
            zip[end + 16],
            zip[end + 17],
            zip[end + 18],
            zip[end + 19],
        ]))
        .expect("offset");
        assert_eq!(&zip[central..central + 4], b"PK\x01\x02");
        let crc = u32::from_le_bytes([
            zip[central + 16],
            zip[central + 17],
            zip[central + 18],
            zip[central + 19],
        ]);
        assert_eq!(crc, crc32(b"hello"));
    }
}
