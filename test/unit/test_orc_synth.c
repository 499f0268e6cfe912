/*
 * test_orc_synth.c - the ORC reader on files built here, byte by byte.
 *
 * The test data written by Java Paimon only uses ZSTD, RLE v2 and single
 * stripes, so this test writes small ORC files itself (protobuf tail,
 * RLE v1 streams, a v1 dictionary, a list column, two stripes with
 * statistics) and compresses every section with each codec using the
 * codec libraries' own compressors (zlib raw deflate, snappy, LZ4 block,
 * zstd), in small chunks so that streams span several chunks and
 * incompressible chunks are stored as "original".  The reader must give
 * back exactly the values that were encoded.
 */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <snappy-c.h>
#include <lz4.h>

#include "format/format.h"

#define NROWS_PER_STRIPE 1500
#define NSTRIPES 2
#define CHUNK 100
#define BLOCK 128

static const char *dict[] = {"apple", "banana", "cherry", "date", "elder"};

/* the values of global row i */
static bool
a_is_null(int i)
{
	return i % 10 == 3;
}
static int64_t
a_val(int i)
{
	return (int64_t) i * 7 - 300;
}
static const char *
s_val(int i)
{
	return dict[(i * 3) % 5];
}
static double
d_val(int i)
{
	return i * 0.5 - 10;
}
static int
l_len(int i)
{
	return i % 4;
}
static int64_t
l_item(int i, int k)
{
	return (int64_t) i * 1000 + k;
}

static float
f_val(int i)
{
	return (float) i * 0.25f - 3.0f;
}
static bool
b_val(int i)
{
	return i % 3 == 0;
}
static int64_t
t_val(int i)
{
	return (int8_t) (uint8_t) (i * 13);
}
static int64_t
sh_val(int i)
{
	return (int16_t) (i * 37 - 20000);
}
/* timestamps: millis (floor) and extra nanos within the milli */
static int64_t
ts_ms(int i)
{
	return (int64_t) (i - 750) * 1001 * 1000 + (i % 5) * 7;
}
static int32_t
ts_ns(int i)
{
	return (i % 7) * 111;
}
/* DECIMAL(10, 3) unscaled */
static int64_t
dec_val(int i)
{
	return (int64_t) (i - 700) * 1234 * (i % 2 ? 1 : 10);
}

/* ---- protobuf and RLE v1 encoders ------------------------------------- */

static void
put(ts_buf *b, const void *p, size_t n)
{
	ts_err		err;

	assert_true(ts_buf_append(b, p, n, &err));
}

static void
put_u8(ts_buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void
put_varint(ts_buf *b, uint64_t v)
{
	while (v >= 0x80)
	{
		put_u8(b, (uint8_t) (v | 0x80));
		v >>= 7;
	}
	put_u8(b, (uint8_t) v);
}

static uint64_t
zz(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static void
pb_uint(ts_buf *b, int field, uint64_t v)
{
	put_varint(b, (uint64_t) field << 3);
	put_varint(b, v);
}

static void
pb_bytes(ts_buf *b, int field, const void *p, size_t n)
{
	put_varint(b, ((uint64_t) field << 3) | 2);
	put_varint(b, n);
	put(b, p, n);
}

static void
pb_msg(ts_buf *b, int field, ts_buf *m)
{
	pb_bytes(b, field, m->data, m->len);
	ts_buf_reset(m);
}

/* RLE v1 literals only (groups of up to 128) */
static void
rle1(ts_buf *b, const int64_t *v, int n, bool is_signed)
{
	int			i = 0;

	while (i < n)
	{
		int			k = n - i > 128 ? 128 : n - i;
		int			j;

		put_u8(b, (uint8_t) (256 - k));
		for (j = 0; j < k; j++)
			put_varint(b, is_signed ? zz(v[i + j]) : (uint64_t) v[i + j]);
		i += k;
	}
}

/* boolean RLE as byte literals */
static void
bool_rle(ts_buf *b, const bool *v, int n)
{
	uint8_t		bytes[NROWS_PER_STRIPE];
	int			nb = (n + 7) / 8,
				i = 0;

	memset(bytes, 0, sizeof(bytes));
	for (i = 0; i < n; i++)
		if (v[i])
			bytes[i / 8] |= (uint8_t) (0x80 >> (i % 8));
	i = 0;
	while (i < nb)
	{
		int			k = nb - i > 128 ? 128 : nb - i;

		put_u8(b, (uint8_t) (256 - k));
		put(b, bytes + i, k);
		i += k;
	}
}

/* ---- compression ------------------------------------------------------- */

static size_t
compress_one(int codec, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	switch (codec)
	{
		case 1:
			{
				z_stream	zs;
				size_t		got;

				memset(&zs, 0, sizeof(zs));
				assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
				zs.next_in = (Bytef *) in;
				zs.avail_in = (uInt) n;
				zs.next_out = out;
				zs.avail_out = (uInt) cap;
				assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
				got = cap - zs.avail_out;
				deflateEnd(&zs);
				return got;
			}
		case 2:
			{
				size_t		got = cap;

				assert_int_equal(snappy_compress((const char *) in, n, (char *) out, &got), SNAPPY_OK);
				return got;
			}
		case 4:
			return (size_t) LZ4_compress_default((const char *) in, (char *) out, (int) n, (int) cap);
		case 5:
			{
				size_t		got = ZSTD_compress(out, cap, in, n, 3);

				assert_false(ZSTD_isError(got));
				return got;
			}
	}
	fail();
	return 0;
}

static int compressed_chunks;	/* chunks stored compressed (not original) */

/* append section `in` to the file in ORC chunked form for codec */
static size_t
emit(ts_buf *file, int codec, const ts_buf *in)
{
	size_t		start = file->len;
	size_t		off = 0;

	if (codec == 0)
	{
		put(file, in->data, in->len);
		return in->len;
	}
	while (off < in->len)
	{
		size_t		n = in->len - off > CHUNK ? CHUNK : in->len - off;
		uint8_t		out[1024];
		size_t		c = compress_one(codec, in->data + off, n, out, sizeof(out));
		uint32_t	h;
		uint8_t		hb[3];

		if (c == 0 || c >= n)
		{
			h = (uint32_t) (n << 1) | 1;
			c = 0;
		}
		else
		{
			h = (uint32_t) (c << 1);
			compressed_chunks++;
		}
		hb[0] = h & 0xff;
		hb[1] = (h >> 8) & 0xff;
		hb[2] = (h >> 16) & 0xff;
		put(file, hb, 3);
		if (c)
			put(file, out, c);
		else
			put(file, in->data + off, n);
		off += n;
	}
	return file->len - start;
}

/* ---- the file ---------------------------------------------------------- */

typedef struct synth_opts
{
	int			codec;
	int			ps_codec;		/* compression kind written in the postscript */
	int			string_encoding;	/* 1 = DICTIONARY */
	int			bad_stream_extra;	/* added to the first stream's declared length */
	int			bad_dict_index; /* write index 7 for row 5 */
} synth_opts;

static void
column_stats_int(ts_buf *out, uint64_t nvalues, int64_t mn, int64_t mx, bool has_null)
{
	ts_buf		cs,
				is;

	ts_buf_init(&cs);
	ts_buf_init(&is);
	pb_uint(&cs, 1, nvalues);
	pb_uint(&is, 1, zz(mn));
	pb_uint(&is, 2, zz(mx));
	pb_msg(&cs, 2, &is);
	pb_uint(&cs, 10, has_null);
	pb_msg(out, 1, &cs);
	ts_buf_free(&cs);
	ts_buf_free(&is);
}

static void
build_file(const char *path, const synth_opts *o)
{
	ts_buf		file,
				footer,
				meta,
				ps,
				m,
				m2;
	uint64_t	stripe_off[NSTRIPES],
				stripe_data[NSTRIPES],
				stripe_foot[NSTRIPES];
	int			s;
	size_t		footer_len,
				meta_len;
	FILE	   *fp;

	ts_buf_init(&file);
	ts_buf_init(&footer);
	ts_buf_init(&meta);
	ts_buf_init(&ps);
	ts_buf_init(&m);
	ts_buf_init(&m2);
	put(&file, "ORC", 3);

	for (s = 0; s < NSTRIPES; s++)
	{
		/* streams: (column, kind, bytes), in file order */
#define NST 18
		ts_buf		st[NST];
		int			col[NST] = {1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 11};
		int			kind[NST] = {0, 1, 1, 3, 2, 1, 2, 1, 1, 1, 1, 1, 1, 5, 1, 5};
		int			nst = 16;
		size_t		lens[NST];
		bool		present[NROWS_PER_STRIPE];
		int64_t		ints[NROWS_PER_STRIPE * 4];
		int64_t		ints2[NROWS_PER_STRIPE];
		int			n = 0,
					i,
					k;
		ts_buf		sf;
		int64_t		amin = INT64_MAX,
					amax = INT64_MIN;
		uint64_t	anv = 0;
		const int	base = s * NROWS_PER_STRIPE;

		for (k = 0; k < NST; k++)
			ts_buf_init(&st[k]);
		/* a: PRESENT + DATA (signed RLE v1) */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
		{
			int			g = base + i;

			present[i] = !a_is_null(g);
			if (present[i])
			{
				ints[n++] = a_val(g);
				anv++;
				if (a_val(g) < amin)
					amin = a_val(g);
				if (a_val(g) > amax)
					amax = a_val(g);
			}
		}
		bool_rle(&st[0], present, NROWS_PER_STRIPE);
		rle1(&st[1], ints, n, true);
		/* s: dictionary DATA (indexes), DICTIONARY_DATA, LENGTH */
		if (o->string_encoding == 1)
		{
			for (i = 0; i < NROWS_PER_STRIPE; i++)
			{
				const char *v = s_val(base + i);

				for (k = 0; k < 5; k++)
					if (strcmp(dict[k], v) == 0)
						ints[i] = k;
				if (o->bad_dict_index && i == 5)
					ints[i] = 7;
			}
			rle1(&st[2], ints, NROWS_PER_STRIPE, false);
			for (k = 0; k < 5; k++)
			{
				put(&st[3], dict[k], strlen(dict[k]));
				ints[k] = (int64_t) strlen(dict[k]);
			}
			rle1(&st[4], ints, 5, false);
		}
		else
		{
			/* DIRECT: DATA bytes, LENGTH; no DICTIONARY_DATA */
			for (i = 0; i < NROWS_PER_STRIPE; i++)
			{
				const char *v = s_val(base + i);

				put(&st[2], v, strlen(v));
				ints[i] = (int64_t) strlen(v);
			}
			rle1(&st[4], ints, NROWS_PER_STRIPE, false);
		}
		/* d: doubles */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
		{
			double		d = d_val(base + i);

			put(&st[5], &d, 8);
		}
		/* l: LENGTH + child DATA */
		n = 0;
		for (i = 0; i < NROWS_PER_STRIPE; i++)
			ints[i] = l_len(base + i);
		rle1(&st[6], ints, NROWS_PER_STRIPE, false);
		for (i = 0; i < NROWS_PER_STRIPE; i++)
			for (k = 0; k < l_len(base + i); k++)
				ints[n++] = l_item(base + i, k);
		rle1(&st[7], ints, n, true);
		/* f: floats */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
		{
			float		f = f_val(base + i);

			put(&st[8], &f, 4);
		}
		/* b: boolean RLE */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
			present[i] = b_val(base + i);
		bool_rle(&st[9], present, NROWS_PER_STRIPE);
		/* t: byte RLE literals */
		for (i = 0; i < NROWS_PER_STRIPE; i += 128)
		{
			int			kk = NROWS_PER_STRIPE - i > 128 ? 128 : NROWS_PER_STRIPE - i;

			put_u8(&st[10], (uint8_t) (256 - kk));
			for (k = 0; k < kk; k++)
				put_u8(&st[10], (uint8_t) t_val(base + i + k));
		}
		/* sh: signed RLE v1 */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
			ints[i] = sh_val(base + i);
		rle1(&st[11], ints, NROWS_PER_STRIPE, true);
		/* ts: seconds (truncated toward zero, as Java) - 2015 base, encoded nanos */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
		{
			int64_t		ms = ts_ms(base + i);
			int64_t		secs = ms / 1000;	/* C and Java both truncate */
			int64_t		nanos = ((ms % 1000 + 1000) % 1000) * 1000000 + ts_ns(base + i);
			int64_t		enc;

			ints[i] = secs - INT64_C(1420070400);
			if (nanos == 0)
				enc = 0;
			else if (nanos % 100 != 0)
				enc = nanos << 3;
			else
			{
				int			z = 1;

				nanos /= 100;
				while (nanos % 10 == 0 && z < 7)
				{
					nanos /= 10;
					z++;
				}
				enc = (nanos << 3) | z;
			}
			ints2[i] = enc;
		}
		rle1(&st[12], ints, NROWS_PER_STRIPE, true);
		rle1(&st[13], ints2, NROWS_PER_STRIPE, false);
		/* dec: varint unscaled, normalized (trailing zeros stripped) + scale */
		for (i = 0; i < NROWS_PER_STRIPE; i++)
		{
			int64_t		v = dec_val(base + i);
			int64_t		sc = 3;

			while (sc > 0 && v % 10 == 0)
			{
				v /= 10;
				sc--;
			}
			put_varint(&st[14], zz(v));
			ints[i] = sc;
		}
		rle1(&st[15], ints, NROWS_PER_STRIPE, true);

		stripe_off[s] = file.len;
		for (k = 0; k < nst; k++)
			lens[k] = emit(&file, o->codec, &st[k]);
		stripe_data[s] = file.len - stripe_off[s];

		ts_buf_init(&sf);
		for (k = 0; k < nst; k++)
		{
			if (o->string_encoding != 1 && kind[k] == 3)
				continue;
			pb_uint(&m, 1, kind[k]);
			pb_uint(&m, 2, col[k]);
			pb_uint(&m, 3, lens[k] + (k == 0 ? o->bad_stream_extra : 0));
			pb_msg(&sf, 1, &m);
		}
		for (k = 0; k < 12; k++)
		{
			if (k == 2 && o->string_encoding == 1)
			{
				pb_uint(&m, 1, 1);	/* DICTIONARY */
				pb_uint(&m, 2, 5);
			}
			else
				pb_uint(&m, 1, k == 2 ? o->string_encoding : 0);
			pb_msg(&sf, 2, &m);
		}
		pb_bytes(&sf, 3, "UTC", 3);
		stripe_foot[s] = emit(&file, o->codec, &sf);
		ts_buf_free(&sf);
		for (k = 0; k < NST; k++)
			ts_buf_free(&st[k]);

		/* stripe statistics: root, a (int), others without stats */
		{
			ts_buf		ss;

			ts_buf_init(&ss);
			pb_uint(&m2, 1, NROWS_PER_STRIPE);
			pb_msg(&ss, 1, &m2);
			column_stats_int(&ss, anv, amin, amax, true);
			for (k = 2; k < 12; k++)
			{
				pb_uint(&m2, 1, NROWS_PER_STRIPE);
				pb_msg(&ss, 1, &m2);
			}
			pb_msg(&meta, 1, &ss);
			ts_buf_free(&ss);
		}
	}
	meta_len = emit(&file, o->codec, &meta);

	/* footer */
	pb_uint(&footer, 1, 3);
	pb_uint(&footer, 2, file.len - meta_len - 3);
	for (s = 0; s < NSTRIPES; s++)
	{
		pb_uint(&m, 1, stripe_off[s]);
		pb_uint(&m, 2, 0);
		pb_uint(&m, 3, stripe_data[s]);
		pb_uint(&m, 4, stripe_foot[s]);
		pb_uint(&m, 5, NROWS_PER_STRIPE);
		pb_msg(&footer, 3, &m);
	}
	/* types: 0 struct<a:int,s:string,d:double,l:array<bigint>> */
	{
		ts_buf		sub;

		ts_buf_init(&sub);
		pb_uint(&m, 1, 12);
		put_varint(&sub, 1);
		put_varint(&sub, 2);
		put_varint(&sub, 3);
		put_varint(&sub, 4);
		put_varint(&sub, 6);
		put_varint(&sub, 7);
		put_varint(&sub, 8);
		put_varint(&sub, 9);
		put_varint(&sub, 10);
		put_varint(&sub, 11);
		pb_msg(&m, 2, &sub);
		pb_bytes(&m, 3, "a", 1);
		pb_bytes(&m, 3, "s", 1);
		pb_bytes(&m, 3, "d", 1);
		pb_bytes(&m, 3, "l", 1);
		pb_bytes(&m, 3, "f", 1);
		pb_bytes(&m, 3, "b", 1);
		pb_bytes(&m, 3, "t", 1);
		pb_bytes(&m, 3, "sh", 2);
		pb_bytes(&m, 3, "ts", 2);
		pb_bytes(&m, 3, "dec", 3);
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 3);		/* int */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 7);		/* string */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 6);		/* double */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 10);		/* list, not packed subtypes */
		pb_uint(&m, 2, 5);
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 4);		/* bigint */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 5);		/* float */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 0);		/* boolean */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 1);		/* tinyint */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 2);		/* smallint */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 9);		/* timestamp */
		pb_msg(&footer, 4, &m);
		pb_uint(&m, 1, 14);		/* decimal(10, 3) */
		pb_uint(&m, 5, 10);
		pb_uint(&m, 6, 3);
		pb_msg(&footer, 4, &m);
		ts_buf_free(&sub);
	}
	pb_uint(&footer, 6, NROWS_PER_STRIPE * NSTRIPES);
	pb_uint(&footer, 8, 0);
	footer_len = emit(&file, o->codec, &footer);

	/* postscript */
	pb_uint(&ps, 1, footer_len);
	pb_uint(&ps, 2, o->ps_codec);
	pb_uint(&ps, 3, BLOCK);
	{
		ts_buf		ver;

		ts_buf_init(&ver);
		put_varint(&ver, 0);
		put_varint(&ver, 12);
		pb_msg(&ps, 4, &ver);
		ts_buf_free(&ver);
	}
	pb_uint(&ps, 5, meta_len);
	pb_uint(&ps, 6, 9);
	pb_bytes(&ps, 8000, "ORC", 3);
	put(&file, ps.data, ps.len);
	put_u8(&file, (uint8_t) ps.len);

	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(file.data, 1, file.len, fp), file.len);
	fclose(fp);
	ts_buf_free(&file);
	ts_buf_free(&footer);
	ts_buf_free(&meta);
	ts_buf_free(&ps);
	ts_buf_free(&m);
	ts_buf_free(&m2);
}

/* ---- reading back ------------------------------------------------------ */

#define NCOLS 10
static ts_type *t_int,
		   *t_str,
		   *t_dbl,
		   *t_arr,
		   *t_flt,
		   *t_bool,
		   *t_tiny,
		   *t_small,
		   *t_ts,
		   *t_dec;
static ts_read_column cols[NCOLS];

static int
setup(void **state)
{
	(void) state;
	t_int = ts_type_new(TS_INT, true);
	t_str = ts_type_new(TS_VARCHAR, true);
	t_str->length = TS_STRING_LENGTH;
	t_dbl = ts_type_new(TS_DOUBLE, true);
	t_arr = ts_type_new(TS_ARRAY, true);
	t_arr->element = ts_type_new(TS_BIGINT, true);
	cols[0] = (ts_read_column) {-1, "a", t_int};
	cols[1] = (ts_read_column) {-1, "s", t_str};
	cols[2] = (ts_read_column) {-1, "d", t_dbl};
	cols[3] = (ts_read_column) {-1, "l", t_arr};
	t_flt = ts_type_new(TS_FLOAT, true);
	t_bool = ts_type_new(TS_BOOLEAN, true);
	t_tiny = ts_type_new(TS_TINYINT, true);
	t_small = ts_type_new(TS_SMALLINT, true);
	t_ts = ts_type_new(TS_TIMESTAMP, true);
	t_ts->precision = 9;
	t_dec = ts_type_new(TS_DECIMAL, true);
	t_dec->precision = 10;
	t_dec->scale = 3;
	cols[4] = (ts_read_column) {-1, "f", t_flt};
	cols[5] = (ts_read_column) {-1, "b", t_bool};
	cols[6] = (ts_read_column) {-1, "t", t_tiny};
	cols[7] = (ts_read_column) {-1, "sh", t_small};
	cols[8] = (ts_read_column) {-1, "ts", t_ts};
	cols[9] = (ts_read_column) {-1, "dec", t_dec};
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	ts_type_free(t_int);
	ts_type_free(t_str);
	ts_type_free(t_dbl);
	ts_type_free(t_arr);
	ts_type_free(t_flt);
	ts_type_free(t_bool);
	ts_type_free(t_tiny);
	ts_type_free(t_small);
	ts_type_free(t_ts);
	ts_type_free(t_dec);
	return 0;
}

static const char *
tmp_path(void)
{
	static char p[128];

	snprintf(p, sizeof(p), "/tmp/ts_orc_synth_%d.orc", (int) getpid());
	return p;
}

/* read and verify; returns rows read; first_row = global index of row 0 */
static int
verify(const char *path, const ts_reader_options *opt, int first_row, ts_format_reader **keep)
{
	ts_err		err = {0};
	ts_format_reader *r = ts_orc_open(path, cols, NCOLS, opt ? opt : unit_local_read(), &err);
	ts_batch	b;
	int			n,
				g = first_row,
				maxbatch = opt && opt->batch_rows ? opt->batch_rows : TS_BATCH_ROWS;

	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		int			i,
					k;

		assert_true(n <= maxbatch);
		for (i = 0; i < n; i++, g++)
		{
			const ts_value *a = ts_batch_at(&b, i, 0);
			const ts_value *s = ts_batch_at(&b, i, 1);
			const ts_value *d = ts_batch_at(&b, i, 2);
			const ts_value *l = ts_batch_at(&b, i, 3);

			assert_int_equal(a->isnull, a_is_null(g));
			if (!a->isnull)
				assert_int_equal(a->v.i, a_val(g));
			assert_false(s->isnull);
			assert_int_equal(s->v.s.len, strlen(s_val(g)));
			assert_memory_equal(s->v.s.p, s_val(g), s->v.s.len);
			assert_true(d->v.d == d_val(g));
			assert_false(l->isnull);
			assert_int_equal(l->v.nested.n, l_len(g));
			for (k = 0; k < l_len(g); k++)
				assert_int_equal(l->v.nested.items[k].v.i, l_item(g, k));
			assert_true(ts_batch_at(&b, i, 4)->v.f == f_val(g));
			assert_int_equal(ts_batch_at(&b, i, 5)->v.i, b_val(g));
			assert_int_equal(ts_batch_at(&b, i, 6)->v.i, t_val(g));
			assert_int_equal(ts_batch_at(&b, i, 7)->v.i, sh_val(g));
			assert_int_equal(ts_batch_at(&b, i, 8)->v.ts.millis, ts_ms(g));
			assert_int_equal(ts_batch_at(&b, i, 8)->v.ts.nanos, ts_ns(g));
			assert_true(ts_batch_at(&b, i, 9)->v.dec == dec_val(g));
		}
	}
	if (n < 0)
		fail_msg("%s", err.msg);
	if (keep)
		*keep = r;
	else
		ts_format_close(r);
	return g - first_row;
}

static void
test_codecs(void **state)
{
	int			codecs[] = {0, 1, 2, 4, 5};
	int			c;

	(void) state;
	for (c = 0; c < 5; c++)
	{
		synth_opts	o = {.codec = codecs[c],.ps_codec = codecs[c],.string_encoding = 1};
		ts_format_reader *r;

		compressed_chunks = 0;
		build_file(tmp_path(), &o);
		/* both stored and compressed chunks occur */
		if (codecs[c] != 0)
			assert_true(compressed_chunks > 10);
		assert_int_equal(verify(tmp_path(), NULL, 0, &r), NROWS_PER_STRIPE * NSTRIPES);
		assert_int_equal(r->metrics.row_groups_total, 2);
		assert_int_equal(r->metrics.row_groups_kept, 2);
		ts_format_close(r);

		/* direct strings too, and small batches */
		o.string_encoding = 0;
		build_file(tmp_path(), &o);
		{
			ts_reader_options opt = {.fs = ts_fs_local_unconfined()};

			opt.batch_rows = 100;
			assert_int_equal(verify(tmp_path(), &opt, 0, NULL), NROWS_PER_STRIPE * NSTRIPES);
		}
	}
	unlink(tmp_path());
}

/*
 * The file read in two byte ranges [0, x) and [x, end) for x across the
 * file (a parallel scan's parts): the first gets the stripes that start
 * before x, the second the others, every row once and in order.
 */
static void
test_ranges(void **state)
{
	synth_opts	o = {.codec = 5,.ps_codec = 5,.string_encoding = 1};
	FILE	   *fp;
	long		size;
	int			splits_between = 0;

	(void) state;
	build_file(tmp_path(), &o);
	fp = fopen(tmp_path(), "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	for (int k = 0; k <= 8; k++)
	{
		ts_reader_options first = {.fs = ts_fs_local_unconfined()},
					second = {.fs = ts_fs_local_unconfined()};
		ts_format_reader *r;
		int			n1,
					n2,
					groups;

		first.range_start = 0;
		first.range_end = k == 0 ? 1 : size * k / 8;
		second.range_start = first.range_end;
		second.range_end = INT64_MAX;
		n1 = verify(tmp_path(), &first, 0, &r);
		groups = r->metrics.row_groups_total;
		ts_format_close(r);
		n2 = verify(tmp_path(), &second, n1, &r);
		groups += r->metrics.row_groups_total;
		ts_format_close(r);
		assert_int_equal(n1 + n2, NROWS_PER_STRIPE * NSTRIPES);
		assert_int_equal(n1 % NROWS_PER_STRIPE, 0);
		assert_int_equal(groups, NSTRIPES);
		if (n1 > 0 && n2 > 0)
			splits_between++;
	}
	assert_true(splits_between > 0);	/* some x fell between the stripes */
	unlink(tmp_path());
}

typedef struct min_filter
{
	int64_t		threshold;
	int			calls;
	ts_column_stats seen[NSTRIPES];
} min_filter;

static bool
keep_if_min_above(void *arg, const ts_column_stats *stats, int ncols)
{
	min_filter *f = arg;

	assert_int_equal(ncols, NCOLS);
	f->seen[f->calls++] = stats[0];
	return !(stats[0].has_min_max && stats[0].max.v.i < f->threshold);
}

static void
test_stripe_skipping(void **state)
{
	synth_opts	o = {.codec = 5,.ps_codec = 5,.string_encoding = 1};
	min_filter	f = {.threshold = a_val(NROWS_PER_STRIPE)};
	ts_reader_options opt = {.fs = ts_fs_local_unconfined()};
	ts_format_reader *r;
	int			s;

	(void) state;
	build_file(tmp_path(), &o);
	opt.stats_filter = keep_if_min_above;
	opt.stats_filter_arg = &f;
	assert_int_equal(verify(tmp_path(), &opt, NROWS_PER_STRIPE, &r), NROWS_PER_STRIPE);
	assert_int_equal(f.calls, 2);
	assert_int_equal(r->metrics.row_groups_total, 2);
	assert_int_equal(r->metrics.row_groups_kept, 1);
	assert_int_equal(r->metrics.rows_read, NROWS_PER_STRIPE);
	ts_format_close(r);
	/* the statistics handed to the filter are the written ones */
	for (s = 0; s < NSTRIPES; s++)
	{
		int			first = s * NROWS_PER_STRIPE,
					last = first + NROWS_PER_STRIPE - 1,
					nulls = 0,
					i;

		for (i = first; i <= last; i++)
			nulls += a_is_null(i);
		assert_true(f.seen[s].has_min_max);
		assert_int_equal(f.seen[s].min.v.i, a_val(first));
		assert_int_equal(f.seen[s].max.v.i, a_val(last));
		assert_int_equal(f.seen[s].null_count, nulls);
		assert_int_equal(f.seen[s].row_count, NROWS_PER_STRIPE);
	}
	unlink(tmp_path());
}

static void
expect_error(const synth_opts *o, ts_errcode code, const char *needle)
{
	ts_err		err = {0};
	ts_format_reader *r;
	ts_batch	b;
	int			n = 0;

	build_file(tmp_path(), o);
	r = ts_orc_open(tmp_path(), cols, NCOLS, unit_local_read(), &err);
	if (r)
	{
		while ((n = ts_format_next(r, &b, &err)) > 0)
			;
		/* a failed reader stays failed */
		if (n < 0)
			assert_true(ts_format_next(r, &b, &err) <= 0);
		ts_format_close(r);
	}
	assert_true(r == NULL || n < 0);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, needle) || !strstr(err.msg, tmp_path()))
		fail_msg("message \"%s\" lacks \"%s\" or the path", err.msg, needle);
	unlink(tmp_path());
}

static void
test_errors(void **state)
{
	(void) state;
	{
		synth_opts	o = {.codec = 0,.ps_codec = 3};	/* LZO */

		expect_error(&o, TS_ERR_UNSUPPORTED, "LZO");
	}
	{
		synth_opts	o = {.codec = 0,.ps_codec = 0,.string_encoding = 7};

		expect_error(&o, TS_ERR_UNSUPPORTED, "encoding");
	}
	{
		synth_opts	o = {.codec = 5,.ps_codec = 5,.string_encoding = 1,.bad_stream_extra = 100000};

		expect_error(&o, TS_ERR_CORRUPT, "overflows the stripe");
	}
	{
		synth_opts	o = {.codec = 1,.ps_codec = 1,.string_encoding = 1,.bad_dict_index = 1};

		expect_error(&o, TS_ERR_CORRUPT, "dictionary index");
	}
	{
		/* a stream declared shorter than written: values run out -> column named */
		synth_opts	o = {.codec = 0,.ps_codec = 0,.string_encoding = 0,.bad_stream_extra = -30};

		expect_error(&o, TS_ERR_CORRUPT, "column \"a\"");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codecs),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_stripe_skipping),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
