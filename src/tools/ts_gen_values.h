/*
 * ts_gen_values.h - the value formulas of the fixture generator (included
 * by src/tools/ts_gen.c after its arguments).
 *
 * Owns: f(T, name, n), the value of row n of a column of type T, and which
 * rows are NULL, as the VALUES section of ts_gen.c's comment states them
 * (tests compute the expected rows from that comment, not from this code).
 */
#ifndef TS_GEN_VALUES_H
#define TS_GEN_VALUES_H


static char *
arena_printf(ts_arena *a, const char *fmt,...)
{
	va_list		ap;
	char	   *r;

	va_start(ap, fmt);
	r = ts_arena_vprintf(a, fmt, ap);
	va_end(ap);
	if (r == NULL)
		die("out of memory");
	return r;
}

static int64_t
pow10_i64(int p)
{
	int64_t		r = 1;

	while (p-- > 0)
		r *= 10;
	return r;
}

static void gen_value(const ts_type *t, const char *name, int64_t n, ts_value *out, ts_arena *a);

static ts_value *
arena_values(ts_arena *a, int n)
{
	ts_value   *v = ts_arena_alloc(a, sizeof(ts_value) * (size_t) (n ? n : 1));

	if (v == NULL)
		die("out of memory");
	memset(v, 0, sizeof(ts_value) * (size_t) (n ? n : 1));
	return v;
}

static void
gen_value(const ts_type *t, const char *name, int64_t n, ts_value *out, ts_arena *a)
{
	memset(out, 0, sizeof(*out));
	switch (t->kind)
	{
		case TS_BOOLEAN:
			out->v.i = n % 2 == 1;
			break;
		case TS_TINYINT:
			out->v.i = n % 128;
			break;
		case TS_SMALLINT:
			out->v.i = n % 32768;
			break;
		case TS_INT:
			out->v.i = (int32_t) n;
			break;
		case TS_BIGINT:
			out->v.i = n * 1000000007LL;
			break;
		case TS_FLOAT:
			out->v.f = (float) n * 0.5f;
			break;
		case TS_DOUBLE:
			out->v.d = (double) n * 1.25;
			break;
		case TS_DECIMAL:
			{
				ts_int128	m = 1;

				for (int i = 0; i < t->precision; i++)
					m *= 10;
				out->v.dec = ((ts_int128) n * ((ts_int128) 1000000000000000000LL + 1)) % m;
			}
			break;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			{
				char	   *s = arena_printf(a, "%s_%lld", name, (long long) n);
				size_t		len = strlen(s);

				if (t->length > 0 && len > (size_t) t->length)
					len = (size_t) t->length;
				if (t->kind == TS_BINARY && len < (size_t) t->length)
				{
					char	   *p = ts_arena_alloc(a, (size_t) t->length);

					if (p == NULL)
						die("out of memory");
					memset(p, 0, (size_t) t->length);
					memcpy(p, s, len);
					s = p;
					len = (size_t) t->length;
				}
				out->v.s.p = (const uint8_t *) s;
				out->v.s.len = (uint32_t) len;
			}
			break;
		case TS_DATE:
			out->v.i = 18262 + n;
			break;
		case TS_TIME:
			{
				int64_t		ms = (n * 1001) % 86400000;
				int64_t		unit = pow10_i64(3 - (t->precision < 3 ? t->precision : 3));

				out->v.i = ms - ms % unit;
			}
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		us = 1577836800000000LL + n * 1001001LL;
				int64_t		unit = pow10_i64(6 - (t->precision < 6 ? t->precision : 6));

				us -= us % unit;
				out->v.ts.millis = us / 1000;
				out->v.ts.nanos = (int32_t) (us % 1000) * 1000;
			}
			break;
		case TS_VECTOR:
			/* exactly length elements, element k = f(E, name, n + k) */
			out->v.nested.n = t->length;
			out->v.nested.items = arena_values(a, t->length);
			for (int j = 0; j < t->length; j++)
				gen_value(t->element, name, n + j, &out->v.nested.items[j], a);
			break;
		case TS_ARRAY:
		case TS_MULTISET:
			{
				int			k = (int) (n % 4);

				out->v.nested.n = k;
				out->v.nested.items = arena_values(a, k);
				for (int j = 0; j < k; j++)
					gen_value(t->element, name, n + j, &out->v.nested.items[j], a);
			}
			break;
		case TS_MAP:
			{
				int			k = (int) (n % 3);

				out->v.nested.n = k;
				out->v.nested.items = arena_values(a, 2 * k);
				for (int j = 0; j < k; j++)
				{
					gen_value(t->key, name, n + j, &out->v.nested.items[2 * j], a);
					gen_value(t->value, name, n + j, &out->v.nested.items[2 * j + 1], a);
				}
			}
			break;
		case TS_ROW:
			out->v.nested.n = t->nfields;
			out->v.nested.items = arena_values(a, t->nfields);
			for (int j = 0; j < t->nfields; j++)
				gen_value(t->fields[j].type, t->fields[j].name, n, &out->v.nested.items[j], a);
			break;
		default:
			die("type kind %d not generated", (int) t->kind);
	}
}

/*
 * The value of column c in row i (NULL rule included), in its schema-0 type,
 * or for a retyped column in a file of schema 1, in its schema-1 type.
 */
static void
file_row_value(const config *cfg, const gcol *c, int64_t i, int schema_id, ts_value *out,
			   ts_arena *a)
{
	if (c->type0->nullable && !c->is_part && !c->is_bkey && !c->is_pk && !c->is_seq &&
		cfg->null_every > 0 &&
		i % cfg->null_every == c->pos % cfg->null_every)
	{
		memset(out, 0, sizeof(*out));
		out->isnull = true;
		return;
	}
	gen_value(schema_id == 1 && c->retyped ? c->type1 : c->type0, c->name0,
			  c->is_part ? i % cfg->partitions : i, out, a);
}

static void
row_value(const config *cfg, const gcol *c, int64_t i, ts_value *out, ts_arena *a)
{
	file_row_value(cfg, c, i, 0, out, a);
}

#endif							/* TS_GEN_VALUES_H */
