/*
 * test_json_scan.c - the strict in-place scan of JSON lines (json_scan.c)
 * against cJSON's tree (json_line.c).
 *
 * What the scan accepts and what it leaves to cJSON is checked rule by
 * rule; then every line of a corpus (hand-written edge cases, random lines
 * of random values in random key order, and random byte mutations of
 * them), over scalar columns of every type and over nested columns, is
 * converted twice, once through the scan and once through the tree only,
 * and the two results must be the same: the same values to the bit, or
 * the same error message.  Strict lines must not reach the tree whole.
 */
#include "unit.h"
#include "unit_values.h"

#include "format/format.h"
#include "format/text/text_internal.h"

static ts_type *
ty(ts_type_kind k, int precision, int scale)
{
	ts_type    *t = ts_type_new(k, true);

	if (k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	if (k == TS_CHAR)
		t->length = 3;
	t->precision = precision;
	t->scale = scale;
	return t;
}

/* A set of columns and, per column, JSON texts that convert. */
typedef struct column_set
{
	int			n;
	const char *const *names;
	const char *const (*good)[3];
	ts_read_column cols[16];
} column_set;

/* every plain scalar type */
#define NSCALAR 15
static const char *const scalar_names[NSCALAR] = {
	"b", "ti", "i", "l", "f", "d", "dec", "dec38", "s", "c", "bin", "dt", "tm", "ts", "tz"
};
static const char *const scalar_good[NSCALAR][3] = {
	{"true", "false", "\"TRUE\""}, {"5", "-128", "\"7\""}, {"42", "-5", "1e3"},
	{"9223372036854775807", "-1", "\"12\""}, {"1.25", "0.1", "\"-2.5\""},
	{"-1e-300", "2.5e-3", "7"}, {"123.4567", "-0.00005", "\"9.5\""},
	{"12345678901234567890.123456789", "0", "-1.5e3"}, {"\"h\\u00e9\\\"llo\"", "\"abc\"", "17.50"},
	{"\"ab\"", "\"abc\"", "\"\\u20ac\""}, {"\"AAEC\"", "\"AA==\"", "\"\""},
	{"\"2024-02-29\"", "\"1970-01-01\"", "\"2024-01-01 10:00\""},
	{"\"12:34:56.789\"", "\"00:00\"", "\"23:59:59\""},
	{"\"2024-01-01 00:00:01.5\"", "\"2024-01-01T10:00:00\"", "\"1969-12-31 23:59:59.999999\""},
	{"\"2024-01-01T10:00:00Z\"", "\"2024-01-01 00:00:01+02:00\"", "\"2024-01-01 00:00\""},
};

/* nested types beside scalars, a string column given objects and arrays */
#define NNESTED 7
static const char *const nested_names[NNESTED] = {"s", "i", "arr", "m", "r", "ms", "dt"};
static const char *const nested_good[NNESTED][3] = {
	{"\"abc\"", "[1,{\"a\":2.50}]", "{\"k\":[true,null,\"\\u00e9\"]}"},
	{"42", "\"7\"", "1e2"},
	{"[1,2,3]", "[]", "[null,-5]"},
	{"{\"a\":1,\"b\":-9007199254740993}", "{}", "{\"\\u00e9\":null}"},
	{"{\"x\":1,\"y\":\"yy\",\"z\":[1.5,2e-3]}", "{\"y\":\"q\"}", "{\"z\":[],\"x\":\"3\"}"},
	{"[\"1.25\",2.5,null]", "[]", "[99999999.99]"},
	{"\"2024-02-29\"", "\"1970-01-01\"", "null"},
};

static void
scalar_set(column_set *set)
{
	const ts_type_kind kinds[NSCALAR] = {
		TS_BOOLEAN, TS_TINYINT, TS_INT, TS_BIGINT, TS_FLOAT, TS_DOUBLE, TS_DECIMAL, TS_DECIMAL,
		TS_VARCHAR, TS_CHAR, TS_VARBINARY, TS_DATE, TS_TIME, TS_TIMESTAMP, TS_TIMESTAMP_LTZ
	};

	memset(set, 0, sizeof(*set));
	set->n = NSCALAR;
	set->names = scalar_names;
	set->good = scalar_good;
	for (int c = 0; c < NSCALAR; c++)
	{
		set->cols[c].field_id = c;
		set->cols[c].name = scalar_names[c];
		set->cols[c].type = ty(kinds[c], c == 6 ? 18 : c == 7 ? 38 : c == 13 ? 6 : c == 14 ? 3 : 0,
							   c == 6 ? 4 : c == 7 ? 9 : 0);
	}
}

static void
nested_set(column_set *set)
{
	ts_type    *arr = ty(TS_ARRAY, 0, 0),
			   *map = ty(TS_MAP, 0, 0),
			   *row = ty(TS_ROW, 0, 0),
			   *ms = ty(TS_MULTISET, 0, 0),
			   *z = ty(TS_ARRAY, 0, 0);

	memset(set, 0, sizeof(*set));
	set->n = NNESTED;
	set->names = nested_names;
	set->good = nested_good;
	arr->element = ty(TS_INT, 0, 0);
	map->key = ty(TS_VARCHAR, 0, 0);
	map->key->nullable = false;
	map->value = ty(TS_BIGINT, 0, 0);
	z->element = ty(TS_DOUBLE, 0, 0);
	row->nfields = 3;
	row->fields = ts_calloc(3, sizeof(ts_field));
	row->fields[0] = (ts_field) {0, ts_strdup("x"), ty(TS_INT, 0, 0), NULL};
	row->fields[1] = (ts_field) {1, ts_strdup("y"), ty(TS_VARCHAR, 0, 0), NULL};
	row->fields[2] = (ts_field) {2, ts_strdup("z"), z, NULL};
	ms->element = ty(TS_DECIMAL, 10, 2);
	{
		ts_type    *types[NNESTED] = {ty(TS_VARCHAR, 0, 0), ty(TS_INT, 0, 0), arr, map, row, ms,
		ty(TS_DATE, 0, 0)};

		for (int c = 0; c < NNESTED; c++)
			set->cols[c] = (ts_read_column) {c, nested_names[c], types[c]};
	}
}

static void
free_set(column_set *set)
{
	for (int c = 0; c < set->n; c++)
		ts_type_free((ts_type *) set->cols[c].type);
}

/* ---- the scan's rules -------------------------------------------------- */

static bool
scans(const char *line, ts_json_span *found)
{
	const char *const key_names[2] = {"a", "b"};
	const size_t lens[2] = {1, 1};
	ts_json_keys keys = {2, key_names, lens, {0}};

	for (int m = 0; m < TS_JSON_ORDER_MAX; m++)
		keys.order[m] = -1;
	return ts_json_scan_object((const uint8_t *) line, strlen(line), &keys, found);
}

static void
test_scan_rules(void **state)
{
	ts_json_span f[2];
	/* accepted: strict JSON that cJSON reads the same way */
	const char *const ok[] = {
		"{}", " {\t\"a\" : 1 ,\r\"b\":\"x\" } ", "{\"a\":-0.5e+3}", "{\"a\":0}",
		"{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}",
		"{\"z\":{\"a\":[1,{\"b\":[]}],\"c\":null},\"a\":true,\"b\":false}",
		"{\"a\":123456789012345678901234567890123456789012345678901234567890123}",	/* 63 */
	};
	/* deferred to the tree parser (which may still accept some) */
	const char *const defer[] = {
		"", "[1]", "\"x\"", "{\"a\":01}", "{\"a\":.5}", "{\"a\":1.}", "{\"a\":+1}", "{\"a\":1e}",
		"{\"a\":-}", "{\"a\":1234567890123456789012345678901234567890123456789012345678901234}",
		"{\"a\":\"\\u0000\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud83dx\"}", "{\"a\":\"\\ud83d\\u0041\"}",
		"{\"a\":\"\\x\"}", "{\"a\":\"\\u12g4\"}", "\xef\xbb\xbf{\"a\":1}", "{\"a\":1}\f", "{\"a\":1} x",
		"{\"a\":1}{", "{\"\\u0061\":1}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":tru}", "{\"a\":nul}",
		"{\"a\":[1,]}", "{\"a\":[1 2]}", "{\"a\":{\"x\"}}", "{\"a\":\"abc", "{\"a\":1",
		"{'a':1}", "{a:1}", "{\"a\":NaN}", "{\"a\":Infinity}",
	};
	char		deep[200];
	char		nul_line[] = "{\"a\":\"x\0y\"}";

	(void) state;
	for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
		if (!scans(ok[k], f))
			fail_msg("deferred a strict line: %s", ok[k]);
	for (size_t k = 0; k < sizeof(defer) / sizeof(defer[0]); k++)
		if (scans(defer[k], f))
			fail_msg("took a line outside the strict subset: %s", defer[k]);
	/* a NUL inside a string: cJSON's C string would end there */
	{
		const char *const key_names[2] = {"a", "b"};
		const size_t lens[2] = {1, 1};
		ts_json_keys keys = {2, key_names, lens, {0}};

		assert_false(ts_json_scan_object((const uint8_t *) nul_line, sizeof(nul_line) - 1, &keys, f));
	}
	/* nesting: 64 levels scanned, 65 deferred */
	for (int depth = 63; depth <= 64; depth++)
	{
		int			o = snprintf(deep, sizeof(deep), "{\"z\":");

		for (int k = 0; k < depth; k++)
			deep[o++] = '[';
		for (int k = 0; k < depth; k++)
			deep[o++] = ']';
		deep[o++] = '}';
		deep[o] = '\0';
		assert_int_equal(scans(deep, f), depth == 63);
	}

	/* spans: a string's content, a number's text, the last of a key given twice */
	assert_true(scans("{\"b\":\"q\\\"r\",\"a\":-12.5,\"a\":7}", f));
	assert_int_equal(f[0].kind, TS_JSON_NUMBER);
	assert_int_equal(f[0].len, 1);
	assert_int_equal(f[1].kind, TS_JSON_STRING);
	assert_true(f[1].escaped);
	assert_int_equal(f[1].len, 4);
	assert_true(scans("{\"a\":-12.5,\"b\":1,\"a\":null}", f));
	assert_int_equal(f[0].kind, TS_JSON_NULL);
	{
		char		out[8];

		assert_int_equal(ts_json_unescape((const uint8_t *) "q\\\"r", 4, out), 3);
		assert_memory_equal(out, "q\"r", 3);
		assert_int_equal(ts_json_unescape((const uint8_t *) "\\u00e9\\ud83d\\ude00", 18, out), 6);
		assert_memory_equal(out, "\xc3\xa9\xf0\x9f\x98\x80", 6);
	}
	assert_true(scans("{\"a\":null,\"z\":1}", f));
	assert_int_equal(f[0].kind, TS_JSON_NULL);
	assert_int_equal(f[1].kind, TS_JSON_MISSING);
	assert_true(scans("{\"a\":[1],\"b\":{}}", f));
	assert_int_equal(f[0].kind, TS_JSON_NESTED);
	assert_int_equal(f[1].kind, TS_JSON_NESTED);
}

/* ---- the scan against the tree ---------------------------------------- */

typedef struct pair
{
	column_set	set;
	ts_arena	arena;
	ts_json_line scan;
	ts_json_line tree;
	int			lines;
	int			failed;
} pair;

/* Convert line both ways; the same values, or the same error. */
static void
check_line(pair *p, const char *line, size_t len)
{
	ts_value	a[16],
				b[16];
	ts_err		ea = {0},
				eb = {0};
	bool		oka,
				okb;

	ts_arena_reset(&p->arena);
	oka = ts_json_line_read(&p->scan, (const uint8_t *) line, len, a, &ea);
	okb = ts_json_line_read(&p->tree, (const uint8_t *) line, len, b, &eb);
	p->lines++;
	if (oka != okb)
		fail_msg("scan %s, tree %s: %.*s (%s%s)", oka ? "ok" : "failed", okb ? "ok" : "failed",
				 (int) len, line, ea.msg, eb.msg);
	if (!oka)
	{
		p->failed++;
		if (strcmp(ea.msg, eb.msg) != 0 || ea.code != eb.code)
			fail_msg("errors differ for %.*s: \"%s\" / \"%s\"", (int) len, line, ea.msg, eb.msg);
		return;
	}
	for (int c = 0; c < p->set.n; c++)
		if (!unit_value_same(p->set.cols[c].type, &a[c], &b[c]))
			fail_msg("column %s differs for %.*s", p->set.names[c], (int) len, line);
}

static void
pair_init(pair *p, bool nested)
{
	ts_err		err = {0};

	memset(p, 0, sizeof(*p));
	if (nested)
		nested_set(&p->set);
	else
		scalar_set(&p->set);
	ts_arena_init(&p->arena, 4096);
	assert_true(ts_json_line_init(&p->scan, p->set.cols, p->set.n, &p->arena, &err));
	assert_true(ts_json_line_init(&p->tree, p->set.cols, p->set.n, &p->arena, &err));
	p->tree.tree_only = true;
}

static void
pair_free(pair *p)
{
	ts_json_line_free(&p->scan);
	ts_json_line_free(&p->tree);
	ts_arena_free(&p->arena);
	free_set(&p->set);
}

/* JSON texts a value may be: right and wrong for each column type */
static const char *const pool[] = {
	"null", "true", "false", "0", "-0", "1", "-5", "42", "3.7", "7.0", "1e3", "1E+2", "-1e-300",
	"2.5e-3", "0.1", "1.25", "127", "128", "-129", "3000000000", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "1e400", "123456789012345.6789",
	"12345678901234567890.123456789", "-0.00005", "0.00005",
	"123456789012345678901234567890123456789012345678901234567890123",
	"1234567890123456789012345678901234567890123456789012345678901234567890",
	"01", "\"42\"", "\" 8 \"", "\"4.5\"", "\"-7\"", "\"true\"", "\"TRUE\"", "\"yes\"", "\"\"",
	"\"h\\u00e9\\\"llo\"", "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"a\\/b\\\\c\\n\\t\"",
	"\"\\u0000x\"", "\"\\u20ac\"", "\"\xc3\xa9t\xc3\xa9\"", "\"\xff\xfe\"", "\"abcd\"", "\"ab\"",
	"\"AAEC\"", "\"AAE\"", "\"AA==\"", "\"2024-01-01\"", "\"2024-02-30\"", "\"2024-02-29\"",
	"\"2024-01-01 00:00:01.5\"", "\"2024-01-01T10:00:00Z\"", "\"2024-01-01 00:00:01+02:00\"",
	"\"2024-01-01 23:59:59.123456789\"", "\"12:34:56.789\"", "\"25:00\"", "\"1.5e2\"", "\"NaN\"",
	"\"Infinity\"", "\"-1e-300\"", "[1,2]", "{\"a\":[1,{\"b\":null}]}", "[]", "{}", "\"\\x\"",
	"\"tab\there\"", "\"\\t\"",
};
#define NPOOL ((int) (sizeof(pool) / sizeof(pool[0])))

static uint64_t rng = 88172645463325252ULL;

static uint32_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t) (rng >> 11);
}

static const char *const blanks[] = {"", "", "", " ", "\t", " \r\n "};

/* A random object of some columns in random order, extra keys, blanks. */
static size_t
random_line(const column_set *set, char *buf, size_t size)
{
	int			order[16];
	int			n = (int) (next_rand() % (set->n + 1));
	size_t		o = 0;

	for (int c = 0; c < set->n; c++)
		order[c] = c;
	for (int c = set->n - 1; c > 0; c--)
	{
		int			k = (int) (next_rand() % (c + 1)),
					t = order[c];

		order[c] = order[k];
		order[k] = t;
	}
	o += snprintf(buf + o, size - o, "%s{", blanks[next_rand() % 6]);
	for (int k = 0; k < n && o < size - 512; k++)
	{
		const char *key = next_rand() % 9 == 0 ? "extra" : set->names[order[k]];
		const char *val = next_rand() % 100 < 85 ? set->good[order[k]][next_rand() % 3] :
			pool[next_rand() % NPOOL];
		o += snprintf(buf + o, size - o, "%s\"%s\"%s:%s%s%s%s", k ? "," : "", key,
					  blanks[next_rand() % 6], blanks[next_rand() % 6], val,
					  blanks[next_rand() % 6], next_rand() % 17 == 0 ? ",\"x\":[{\"y\":[1.5]}]" : "");
	}
	o += snprintf(buf + o, size - o, "}%s", blanks[next_rand() % 6]);
	return o;
}

static const char mutation_bytes[] = "{}[]\":,\\ 0123456789eE.-+tfnulrsa\t\f\x01\xc3";

static size_t
mutate(char *buf, size_t len, size_t size)
{
	int			edits = 1 + (int) (next_rand() % 3);

	for (int e = 0; e < edits && len > 0; e++)
	{
		size_t		at = next_rand() % len;
		char		b = mutation_bytes[next_rand() % (sizeof(mutation_bytes) - 1)];

		switch (next_rand() % 4)
		{
			case 0:				/* replace */
				buf[at] = b;
				break;
			case 1:				/* delete */
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
				break;
			case 2:				/* insert */
				if (len + 1 < size)
				{
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = b;
					len++;
				}
				break;
			default:			/* a NUL */
				buf[at] = '\0';
				break;
		}
	}
	return len;
}

/* Lines of random and mutated objects over a column set, both ways. */
static void
matches_tree(bool nested, const char *const *edge, size_t nedge)
{
	pair		p;
	char		buf[8192];

	pair_init(&p, nested);
	for (size_t k = 0; k < nedge; k++)
		check_line(&p, edge[k], strlen(edge[k]));
	for (int k = 0; k < 30000; k++)
	{
		size_t		len = random_line(&p.set, buf, sizeof(buf));

		check_line(&p, buf, len);
		if (k % 2 == 0)
		{
			len = mutate(buf, len, sizeof(buf));
			check_line(&p, buf, len);
		}
	}
	/* both ways fail often and succeed often, the scan serving most lines */
	print_message("%d lines, %d failed, %ld through the tree\n", p.lines, p.failed,
				  (long) p.scan.tree_lines);
	assert_true(p.failed > p.lines / 10);
	assert_true(p.failed < p.lines * 9 / 10);
	assert_true(p.scan.tree_lines < p.lines / 2);
	pair_free(&p);
}

static void
test_scan_matches_tree(void **state)
{
	const char *const edge[] = {
		"{\"i\":1,\"i\":2}", "{\"i\":2,\"i\":\"x\"}", "{\"i\":\"x\",\"i\":2}", "{}",
		"{\"s\":{\"a\":[1.0,2]},\"i\":1.0}", "{\"s\":[1,\"x\"]}", "{\"i\":[1]}", "{\"b\":{}}",
		"{\"i\":1} trailing", "{\"i\":01}", "\xef\xbb\xbf{\"i\":3}", "{\"i\":3}\f",
		"{\"\\u0069\":5}", "{\"s\":\"x\\u0000y\"}", "[1,2]", "\"x\"", "5", "null", "{\"i\":1",
		"{\"s\":\"\\ud800\\udc00\"}", "{\"s\":\"\\uDBFF\\uDFFF\"}", "{\"c\":\"\\u00e9\\u00e9\\u00e9\"}",
		"{\"l\":-9223372036854775808,\"d\":-0.0,\"f\":3.4028235e38,\"dec\":-99999999999999.9999}",
		"{\"f\":1e39,\"dec38\":99999999999999999999999999999.999999999}",
		"{\"b\":0.0,\"ti\":1e2,\"tm\":\"00:00:00\",\"tz\":\"2024-01-01T00:00:00.001+00:00\"}",
	};

	(void) state;
	matches_tree(false, edge, sizeof(edge) / sizeof(edge[0]));
}

static void
test_scan_matches_tree_nested(void **state)
{
	const char *const edge[] = {
		"{\"r\":{\"x\":1,\"x\":2,\"y\":\"a\"}}", "{\"m\":{\"k\":1,\"k\":2}}", "{\"r\":5}",
		"{\"arr\":{\"a\":1}}", "{\"m\":[1]}", "{\"arr\":\"[1]\"}", "{\"r\":{\"z\":[1,\"x\"]}}",
		"{\"s\":[1.0,-0,1e2,{\"a\":\"\\u00e9\"}]}", "{\"ms\":[\"1.255\",1.255]}",
		"{\"arr\":[1,2],\"arr\":null}", "{\"r\":{\"y\":{\"q\":[]}}}", "{\"m\":{\"\":null}}",
	};

	(void) state;
	matches_tree(true, edge, sizeof(edge) / sizeof(edge[0]));
}

/* Strict lines never reach the tree parser whole. */
static void
test_scan_serves_strict_lines(void **state)
{
	pair		p;
	const char *const strict[] = {
		"{\"i\":1,\"s\":\"a\\tb\",\"b\":true,\"d\":1e-3,\"dt\":\"2024-01-01\",\"z\":[{\"q\":null}]}",
		"{\"s\":\"x\",\"i\":2}", "{}", "{\"i\":\"x\"}", "{\"i\":3.7}", "{\"s\":{\"a\":[1,2.50]}}",
	};
	const char *const nested[] = {
		"{\"arr\":[1,null],\"m\":{\"a\":1},\"r\":{\"x\":1,\"z\":[2.5]},\"ms\":[],\"s\":[true]}",
		"{\"r\":\"x\"}",
	};

	(void) state;
	pair_init(&p, false);
	for (int round = 0; round < 3; round++)
		for (size_t k = 0; k < sizeof(strict) / sizeof(strict[0]); k++)
			check_line(&p, strict[k], strlen(strict[k]));
	assert_int_equal(p.scan.tree_lines, 0);
	assert_int_equal(p.tree.tree_lines, 18);
	/* a line the scan defers does reach the tree (and converts the same) */
	check_line(&p, "{\"i\":01}", 8);
	assert_int_equal(p.scan.tree_lines, 1);
	pair_free(&p);

	/* a name asked twice (as two types): both read it, as the tree finds it twice */
	{
		ts_type    *ti = ty(TS_INT, 0, 0),
				   *ts = ty(TS_VARCHAR, 0, 0);
		ts_read_column twice[2] = {{0, "a", ti}, {1, "a", ts}};
		ts_arena	arena;
		ts_json_line jl;
		ts_value	row[2];
		ts_err		err = {0};

		ts_arena_init(&arena, 1024);
		assert_true(ts_json_line_init(&jl, twice, 2, &arena, &err));
		assert_true(ts_json_line_read(&jl, (const uint8_t *) "{\"a\":\"6\",\"a\":5}", 15, row, &err));
		assert_int_equal(jl.tree_lines, 0);
		assert_false(row[0].isnull);
		assert_int_equal(row[0].v.i, 5);
		assert_false(row[1].isnull);
		assert_int_equal(row[1].v.s.len, 1);
		assert_memory_equal(row[1].v.s.p, "5", 1);
		ts_json_line_free(&jl);
		ts_arena_free(&arena);
		ts_type_free(ti);
		ts_type_free(ts);
	}

	/* nested columns: their values through trees of their own, not the line's */
	pair_init(&p, true);
	for (size_t k = 0; k < sizeof(nested) / sizeof(nested[0]); k++)
		check_line(&p, nested[k], strlen(nested[k]));
	assert_int_equal(p.scan.tree_lines, 0);
	assert_int_equal(p.failed, 1);	/* a ROW given a string */
	/* an array's last element that does not convert: its own error, both ways */
	for (int way = 0; way < 2; way++)
	{
		const char *bad = "{\"arr\":[1,\"x\"]}";
		ts_value	row[NNESTED];
		ts_err		err = {0};

		assert_false(ts_json_line_read(way ? &p.tree : &p.scan, (const uint8_t *) bad, strlen(bad),
									   row, &err));
		assert_non_null(strstr(err.msg, "invalid INT value \"x\""));
		assert_non_null(strstr(err.msg, "column \"arr\""));
	}
	/* a key given twice, at the top and in a ROW: the last value, both ways */
	for (int way = 0; way < 2; way++)
	{
		const char *twice = "{\"i\":1,\"r\":{\"x\":1,\"y\":\"a\",\"x\":3},\"i\":2,\"r2\":0}";
		ts_value	row[NNESTED];
		ts_err		err = {0};

		assert_true(ts_json_line_read(way ? &p.tree : &p.scan, (const uint8_t *) twice, strlen(twice),
									  row, &err));
		assert_int_equal(row[1].v.i, 2);
		assert_int_equal(row[4].v.nested.items[0].v.i, 3);
		assert_int_equal(row[4].v.nested.items[1].v.s.len, 1);
	}
	/* a MAP of a key given twice: its last entry, where it stands */
	for (int way = 0; way < 2; way++)
	{
		const char *twice = "{\"m\":{\"a\":1,\"b\":2,\"a\":3,\"c\":null,\"a\":4,\"b\":5}}";
		ts_value	row[NNESTED];
		ts_value   *kv;
		ts_err		err = {0};

		assert_true(ts_json_line_read(way ? &p.tree : &p.scan, (const uint8_t *) twice, strlen(twice),
									  row, &err));
		assert_int_equal(row[3].v.nested.n, 3);
		kv = row[3].v.nested.items;
		assert_memory_equal(kv[0].v.s.p, "c", 1);
		assert_true(kv[1].isnull);
		assert_memory_equal(kv[2].v.s.p, "a", 1);
		assert_int_equal(kv[3].v.i, 4);
		assert_memory_equal(kv[4].v.s.p, "b", 1);
		assert_int_equal(kv[5].v.i, 5);
	}
	/* 2,000 members of 700 keys: each key once, its last value, in the order of last entries */
	{
		static char big[64 * 1024];
		int			key_of[2000];
		int			o = snprintf(big, sizeof(big), "{\"m\":{");
		int			expect = 0;
		ts_value	row[NNESTED];
		ts_err		err = {0};

		for (int k = 0; k < 2000; k++)
		{
			key_of[k] = (int) (next_rand() % 700);
			o += snprintf(big + o, sizeof(big) - o, "%s\"k%d\":%d", k ? "," : "", key_of[k], k);
		}
		snprintf(big + o, sizeof(big) - o, "}}");
		assert_true(ts_json_line_read(&p.scan, (const uint8_t *) big, strlen(big), row, &err));
		for (int k = 0; k < 2000; k++)
		{
			bool		last = true;
			char		name[16];

			for (int later = k + 1; later < 2000 && last; later++)
				last = key_of[later] != key_of[k];
			if (!last)
				continue;
			snprintf(name, sizeof(name), "k%d", key_of[k]);
			assert_true(expect < row[3].v.nested.n);
			assert_int_equal(row[3].v.nested.items[2 * expect].v.s.len, strlen(name));
			assert_memory_equal(row[3].v.nested.items[2 * expect].v.s.p, name, strlen(name));
			assert_int_equal(row[3].v.nested.items[2 * expect + 1].v.i, k);
			expect++;
		}
		assert_int_equal(row[3].v.nested.n, expect);
	}
	assert_int_equal(p.scan.tree_lines, 0);
	pair_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_rules),
		cmocka_unit_test(test_scan_matches_tree),
		cmocka_unit_test(test_scan_matches_tree_nested),
		cmocka_unit_test(test_scan_serves_strict_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
