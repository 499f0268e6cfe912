/*
 * test_parquet_encoding.c - Parquet decoders on hand-made bytes.
 *
 * Checks the pieces DuckDB (the differential test's writer) does not
 * produce: DELTA_BYTE_ARRAY (the parquet-format Encodings.md example),
 * Hadoop-framed LZ4, the Thrift compact skipping of unknown fields, and
 * the RLE / bit-packed hybrid and DELTA_BINARY_PACKED decoders against
 * values computed by hand from the spec, and the presence-flag decoder of
 * flat columns against the general level decoder.
 */
#include "unit.h"

#include <lz4.h>

#include "format/parquet/pq_internal.h"

static void
test_rle_hybrid(void **state)
{
	/* spec example: bit-packed run of 0..7 with bit width 3 (1 group) */
	const uint8_t bp[] = {0x03, 0x88, 0xC6, 0xFA};
	/* RLE run: 5 x value 3 (bit width 2), then RLE 2 x 1 */
	const uint8_t rle[] = {0x0A, 0x03, 0x04, 0x01};
	uint32_t	out[8];
	pq_rle		r;
	ts_err		err;

	(void) state;
	pq_rle_init(&r, bp, sizeof(bp), 3);
	assert_true(pq_rle_get(&r, out, 8, &err));
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(out[i], i);
	/* no more data: an error, not a read past the end */
	assert_false(pq_rle_get(&r, out, 1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);

	pq_rle_init(&r, rle, sizeof(rle), 2);
	assert_true(pq_rle_get(&r, out, 7, &err));
	for (int i = 0; i < 5; i++)
		assert_int_equal(out[i], 3);
	assert_int_equal(out[5], 1);
	assert_int_equal(out[6], 1);

	/* deprecated BIT_PACKED levels, spec example: 0..7 with width 3, MSB first */
	{
		const uint8_t msb[] = {0x05, 0x39, 0x77};

		pq_bitpacked_init(&r, msb, sizeof(msb), 3);
		assert_true(pq_rle_get(&r, out, 8, &err));
		for (uint32_t i = 0; i < 8; i++)
			assert_int_equal(out[i], i);
		assert_false(pq_rle_get(&r, out, 1, &err));
	}

	/* an RLE value wider than the bit width is corrupt */
	{
		const uint8_t bad[] = {0x02, 0x05};

		pq_rle_init(&r, bad, sizeof(bad), 2);
		assert_false(pq_rle_get(&r, out, 1, &err));
	}
}

/*
 * Bit width 1 (definition levels of flat columns) has a byte-at-a-time
 * path: bit-packed runs read in pieces of every size from 1 to 19 values
 * (so runs are entered at every bit offset), mixed with an RLE run, and a
 * truncated last run; every value against the bits written.
 */
static void
test_rle_bit_width_1(void **state)
{
	uint8_t		data[64];
	uint32_t	want[400];
	uint32_t	got[400];
	size_t		len = 0;
	int			nwant = 0;
	uint32_t	seed = 12345;
	ts_err		err;

	(void) state;
	/* bit-packed run of 10 groups (80 values) */
	data[len++] = (10 << 1) | 1;
	for (int i = 0; i < 10; i++)
	{
		uint8_t		byte = 0;

		for (int b = 0; b < 8; b++)
		{
			seed = seed * 1103515245u + 12345u;
			want[nwant] = (seed >> 16) & 1;
			byte |= (uint8_t) (want[nwant++] << b);
		}
		data[len++] = byte;
	}
	/* RLE run: 13 x 1 */
	data[len++] = 13 << 1;
	data[len++] = 1;
	for (int i = 0; i < 13; i++)
		want[nwant++] = 1;
	/* bit-packed run announcing 4 groups but with only 3 bytes: 24 values */
	data[len++] = (4 << 1) | 1;
	for (int i = 0; i < 3; i++)
	{
		data[len++] = (uint8_t) (0xA5 ^ (i * 0x3C));
		for (int b = 0; b < 8; b++)
			want[nwant++] = (data[len - 1] >> b) & 1;
	}

	for (int piece = 1; piece < 20; piece++)
	{
		pq_rle		r;
		int			done = 0;

		pq_rle_init(&r, data, len, 1);
		while (done < nwant)
		{
			int			k = nwant - done < piece ? nwant - done : piece;

			assert_true(pq_rle_get(&r, got + done, k, &err));
			done += k;
		}
		for (int i = 0; i < nwant; i++)
			if (got[i] != want[i])
				fail_msg("piece %d: value %d is %u, wrote %u", piece, i, got[i], want[i]);
		assert_false(pq_rle_get(&r, got, 1, &err));	/* nothing more */
	}
}

static void
test_delta_binary_packed(void **state)
{
	/* 1 2 3 4 5: block 128, 4 miniblocks, 5 values, first 1; min delta 1, widths 0 */
	const uint8_t a[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
	/* 7 5 3 1 2 3 4 5 (spec example 2): min delta -2, deltas+2 = 0 0 0 3 3 3 3, width 2 */
	const uint8_t b[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
		0xC0, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	const int64_t bw[] = {7, 5, 3, 1, 2, 3, 4, 5};
	pq_delta	d;
	ts_err		err;
	int64_t		v;
	const uint8_t *end;

	(void) state;
	assert_true(pq_delta_init(&d, a, sizeof(a), &err));
	for (int i = 1; i <= 5; i++)
	{
		assert_true(pq_delta_next(&d, &v, &err));
		assert_int_equal(v, i);
	}
	assert_false(pq_delta_next(&d, &v, &err));

	assert_true(pq_delta_init(&d, b, sizeof(b), &err));
	for (int i = 0; i < 8; i++)
	{
		assert_true(pq_delta_next(&d, &v, &err));
		assert_int_equal(v, bw[i]);
	}
	assert_true(pq_delta_init(&d, b, sizeof(b), &err));
	assert_true(pq_delta_end(&d, &end, &err));
	assert_ptr_equal(end, b + sizeof(b));

	/* truncated miniblock */
	assert_true(pq_delta_init(&d, b, 11, &err));
	for (int i = 0; i < 8; i++)
		if (!pq_delta_next(&d, &v, &err))
			break;
	assert_int_equal(err.code, TS_ERR_CORRUPT);
}

/* ---- a hand-made page through the leaf reader ----------------------- */

static size_t
put_varint(uint8_t *p, uint64_t v)
{
	size_t		n = 0;

	while (v >= 0x80)
	{
		p[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t) v;
	return n;
}

/* field header (delta, type) + zig-zag i32 */
static size_t
put_i32_field(uint8_t *p, int delta, int32_t v)
{
	p[0] = (uint8_t) ((delta << 4) | PQ_T_I32);
	return 1 + put_varint(p + 1, ((uint32_t) v << 1) ^ (uint32_t) (v >> 31));
}

static size_t
page_header(uint8_t *p, int32_t size, int32_t num_values, int32_t encoding)
{
	size_t		n = 0;

	n += put_i32_field(p + n, 1, PQ_PAGE_DATA);
	n += put_i32_field(p + n, 1, size);
	n += put_i32_field(p + n, 1, size);
	/* an unknown field 4 (crc) of type binary, to be skipped */
	p[n++] = (1 << 4) | PQ_T_BINARY;
	p[n++] = 2;
	p[n++] = 0xAB;
	p[n++] = 0xCD;
	p[n++] = (1 << 4) | PQ_T_STRUCT;	/* 5: data_page_header */
	n += put_i32_field(p + n, 1, num_values);
	n += put_i32_field(p + n, 1, encoding);
	n += put_i32_field(p + n, 1, PQ_ENC_RLE);
	n += put_i32_field(p + n, 1, PQ_ENC_RLE);
	p[n++] = 0;					/* end of data_page_header */
	p[n++] = 0;					/* end of PageHeader */
	return n;
}

static void
test_delta_byte_array_page(void **state)
{
	/*
	 * Encodings.md: "axis", "axle", "babble", "babyhood" -> prefix lengths
	 * 0 2 0 3, suffixes "axis" "le" "babble" "yhood" (lengths 4 2 6 5).
	 * prefixes: first 0, deltas 2 -2 3: min -2, packed 4 0 5 in 3 bits.
	 * suffix lengths: first 4, deltas -2 4 -1: min -2, packed 0 6 1.
	 */
	uint8_t		data[256];
	size_t		dn = 0;
	const uint8_t prefixes[] = {0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00,
	0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t lengths[] = {0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00,
	0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	const char *suffixes = "axislebabbleyhood";
	const char *want[] = {"axis", "axle", "babble", "babyhood"};
	pq_leaf    *l = ts_calloc(1, sizeof(pq_leaf));
	uint8_t    *chunk;
	size_t		cn;
	pq_column_chunk cc;
	ts_err		err;

	(void) state;
	l->path = "s";
	chunk = pq_leaf_chunk_buffer(l, 512, NULL);
	assert_non_null(chunk);
	memcpy(data + dn, prefixes, sizeof(prefixes));
	dn += sizeof(prefixes);
	memcpy(data + dn, lengths, sizeof(lengths));
	dn += sizeof(lengths);
	memcpy(data + dn, suffixes, strlen(suffixes));
	dn += strlen(suffixes);

	cn = page_header(chunk, (int32_t) dn, 4, PQ_ENC_DELTA_BYTE_ARRAY);
	memcpy(chunk + cn, data, dn);
	cn += dn;

	memset(&cc, 0, sizeof(cc));
	cc.codec = PQ_CODEC_UNCOMPRESSED;
	cc.num_values = 4;
	cc.total_uncompressed_size = (int64_t) cn;
	l->path = "s";
	l->phys = PQ_BYTE_ARRAY;
	l->conv = PQ_CONV_NONE;
	assert_true(pq_leaf_start(l, cn, &cc, &err));
	assert_true(pq_leaf_fill(l, &err));
	assert_int_equal(l->nbuf, 4);
	assert_int_equal(l->nvals, 4);
	for (int i = 0; i < 4; i++)
	{
		assert_int_equal(l->vals[i].v.s.len, strlen(want[i]));
		assert_memory_equal(l->vals[i].v.s.p, want[i], strlen(want[i]));
	}
	assert_true(pq_leaf_fill(l, &err));
	assert_int_equal(l->nbuf, 0);	/* end of chunk */
	pq_leaf_free(l);
}

static void
test_lz4_hadoop(void **state)
{
	uint8_t		raw[3000];
	char		comp[4096];
	uint8_t		framed[4200];
	uint8_t		out[3000];
	int			clen;
	ts_err		err;

	(void) state;
	for (int i = 0; i < (int) sizeof(raw); i++)
		raw[i] = (uint8_t) ((i * 7) % 13);
	clen = LZ4_compress_default((const char *) raw, comp, sizeof(raw), sizeof(comp));
	assert_true(clen > 0);
	/* one Hadoop frame: be32 raw length, be32 compressed length */
	framed[0] = 0;
	framed[1] = 0;
	framed[2] = sizeof(raw) >> 8;
	framed[3] = sizeof(raw) & 0xff;
	framed[4] = (uint8_t) (clen >> 24);
	framed[5] = (uint8_t) (clen >> 16);
	framed[6] = (uint8_t) (clen >> 8);
	framed[7] = (uint8_t) clen;
	memcpy(framed + 8, comp, clen);
	assert_true(pq_decompress(PQ_CODEC_LZ4, framed, clen + 8, out, sizeof(out), &err));
	assert_memory_equal(out, raw, sizeof(raw));
	/* raw LZ4 block under the old codec id: accepted as other readers do */
	memset(out, 0, sizeof(out));
	assert_true(pq_decompress(PQ_CODEC_LZ4, (uint8_t *) comp, clen, out, sizeof(out), &err));
	assert_memory_equal(out, raw, sizeof(raw));
	assert_true(pq_decompress(PQ_CODEC_LZ4_RAW, (uint8_t *) comp, clen, out, sizeof(out), &err));
	/* wrong size / garbage: corrupt */
	assert_false(pq_decompress(PQ_CODEC_LZ4_RAW, (uint8_t *) comp, clen, out, sizeof(out) - 1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(pq_decompress(PQ_CODEC_ZSTD, raw, 100, out, sizeof(out), &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(pq_decompress(PQ_CODEC_BROTLI, raw, 100, out, sizeof(out), &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "BROTLI"));
}

static void
test_thrift_depth(void **state)
{
	/* 100 nested structs in field 5 of a page header: refused, no overflow */
	uint8_t		buf[300];
	size_t		n = 0;
	ts_cursor	c;
	pq_page_header h;
	ts_err		err;

	(void) state;
	buf[n++] = (6 << 4) | PQ_T_STRUCT;	/* field 6: skipped */
	for (int i = 0; i < 99; i++)
		buf[n++] = (1 << 4) | PQ_T_STRUCT;
	memset(buf + n, 0, sizeof(buf) - n);
	ts_cursor_init(&c, buf, sizeof(buf));
	assert_false(pq_parse_page_header(&c, &h, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* a list claiming more elements than bytes */
	n = 0;
	buf[n++] = (4 << 4) | PQ_T_LIST;	/* unknown field 4 */
	buf[n++] = 0xF0 | PQ_T_I32;
	n += put_varint(buf + n, 1000000);
	ts_cursor_init(&c, buf, n + 4);
	assert_false(pq_parse_page_header(&c, &h, &err));
}

/* ---- presence flags (pq_rle_get_present) against pq_rle_get --------- */

/* a tiny RLE / bit-packed hybrid writer for the test */
typedef struct level_writer
{
	uint8_t		buf[4096];
	size_t		len;
} level_writer;

static void
lw_varint(level_writer *w, uint32_t v)
{
	while (v >= 0x80)
	{
		w->buf[w->len++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	w->buf[w->len++] = (uint8_t) v;
}

static void
put_rle_run(level_writer *w, uint32_t count, uint32_t value, int bw)
{
	lw_varint(w, count << 1);
	for (int i = 0; i < (bw + 7) / 8; i++)
		w->buf[w->len++] = (uint8_t) (value >> (8 * i));
}

/* groups * 8 values, LSB first */
static void
put_bitpacked_run(level_writer *w, const uint32_t *v, int groups, int bw)
{
	uint64_t	bitpos = 0;
	size_t		start;

	lw_varint(w, ((uint32_t) groups << 1) | 1);
	start = w->len;
	memset(w->buf + start, 0, (size_t) groups * bw);
	for (int i = 0; i < groups * 8; i++)
		for (int b = 0; b < bw; b++, bitpos++)
			if ((v[i] >> b) & 1)
				w->buf[start + (bitpos >> 3)] |= (uint8_t) (1u << (bitpos & 7));
	w->len += (size_t) groups * bw;
}

static void
test_rle_present(void **state)
{
	static const int widths[] = {0, 1, 2, 3, 5};
	uint32_t	seed = 12345;

	(void) state;
	for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
	{
		int			bw = widths[wi];
		uint32_t	maxv = bw ? (1u << bw) - 1 : 0;

		for (int round = 0; round < 20; round++)
		{
			level_writer w;
			uint32_t	levels[1024];
			uint32_t	ref[1024];
			uint8_t		flags[1024];
			int			total = 0;
			uint32_t	present = maxv > 0 ? 1 + (uint32_t) round % maxv : 0;
			pq_rle		r;
			ts_err		err;
			int			done = 0;
			int			count = 0;

			w.len = 0;
			/* random runs of both kinds, every level <= present */
			while (total < 900)
			{
				seed = seed * 1103515245 + 12345;
				if ((seed >> 16) & 1)
				{
					uint32_t	n = 1 + (seed >> 20) % 40;
					uint32_t	v = present ? (seed >> 8) % (present + 1) : 0;

					put_rle_run(&w, n, v, bw);
					for (uint32_t i = 0; i < n; i++)
						levels[total++] = v;
				}
				else
				{
					int			groups = 1 + (int) ((seed >> 20) % 4);

					for (int i = 0; i < groups * 8; i++)
					{
						seed = seed * 1103515245 + 12345;
						levels[total + i] = present ? (seed >> 16) % (present + 1) : 0;
					}
					put_bitpacked_run(&w, levels + total, groups, bw);
					total += groups * 8;
				}
			}
			pq_rle_init(&r, w.buf, w.len, bw);
			assert_true(pq_rle_get(&r, ref, total, &err));
			/* uneven pieces: runs and bytes are entered in the middle */
			pq_rle_init(&r, w.buf, w.len, bw);
			while (done < total)
			{
				int			piece = 1 + (done * 7 + round) % 37;
				int			got;

				if (piece > total - done)
					piece = total - done;
				assert_true(pq_rle_get_present(&r, flags + done, piece, present, &got, &err));
				count += got;
				done += piece;
			}
			for (int i = 0; i < total; i++)
			{
				assert_int_equal(ref[i], levels[i]);
				assert_int_equal(flags[i], levels[i] == present);
				count -= levels[i] == present;
			}
			assert_int_equal(count, 0);
			/* the data is used up: an error, not a read past the end */
			assert_false(pq_rle_get_present(&r, flags, 1, present, &count, &err));
		}
	}

	/* a level above 'present' is corrupt, in an RLE and in a bit-packed run */
	{
		level_writer w;
		uint32_t	v[8] = {0, 1, 0, 2, 0, 1, 1, 0};
		uint8_t		flags[8];
		pq_rle		r;
		ts_err		err;
		int			count;

		w.len = 0;
		put_rle_run(&w, 3, 2, 2);
		pq_rle_init(&r, w.buf, w.len, 2);
		assert_false(pq_rle_get_present(&r, flags, 3, 1, &count, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		w.len = 0;
		put_bitpacked_run(&w, v, 1, 2);
		pq_rle_init(&r, w.buf, w.len, 2);
		assert_false(pq_rle_get_present(&r, flags, 8, 1, &count, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		/* the same levels are fine when 2 is the maximum */
		pq_rle_init(&r, w.buf, w.len, 2);
		assert_true(pq_rle_get_present(&r, flags, 8, 2, &count, &err));
		assert_int_equal(count, 1);
		assert_int_equal(flags[3], 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle_hybrid),
		cmocka_unit_test(test_rle_bit_width_1),
		cmocka_unit_test(test_rle_present),
		cmocka_unit_test(test_delta_binary_packed),
		cmocka_unit_test(test_delta_byte_array_page),
		cmocka_unit_test(test_lz4_hadoop),
		cmocka_unit_test(test_thrift_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
