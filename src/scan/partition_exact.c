/*
 * partition_exact.c - deciding a predicate exactly on a split's partition.
 *
 * Owns: the strict counterpart of partition pruning.  Pruning only needs
 * "may these rows match?" and answers yes whenever in doubt; counting rows
 * from metadata (count(*) pushdown) needs "do all rows of this partition
 * match?", which is decidable only for predicates made of comparisons of
 * partition keys with literals of the key's own type, combined by AND and
 * OR.  ts_predicate_exact_on_partitions says whether a predicate is of that
 * shape; ts_split_partition_satisfies decides it for one split (SQL
 * semantics: a NULL partition value satisfies only IS NULL).
 */
#include <string.h>

#include "base/ts_type_class.h"
#include "expr/predicate.h"
#include "scan/scan.h"
#include "scan/scan_internal.h"

/* Position of field among the schema's partition keys, or -1. */
static int
partition_key_index(const ts_schema *schema, int field)
{
	if (field < 0 || field >= schema->nfields)
		return -1;
	for (int k = 0; k < schema->npartition_keys; k++)
		if (strcmp(schema->partition_keys[k], schema->fields[field].name) == 0)
			return k;
	return -1;
}

/* Kinds whose values compare exactly (no NaN, no loss, a total order). */
static bool
exactly_ordered(ts_type_kind kind)
{
	return ts_type_stats(kind, TS_STATS_EXACT);
}

bool
ts_predicate_exact_on_partitions(const ts_predicate *p, const ts_schema *schema)
{
	switch (p->op)
	{
		case TS_PRED_AND:
		case TS_PRED_OR:
			if (p->nchildren == 0)
				return false;
			for (int i = 0; i < p->nchildren; i++)
				if (!ts_predicate_exact_on_partitions(&p->children[i], schema))
					return false;
			return true;
		case TS_PRED_EQ:
		case TS_PRED_NE:
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
		case TS_PRED_IN:
		case TS_PRED_NOT_IN:
		case TS_PRED_IS_NULL:
		case TS_PRED_IS_NOT_NULL:
			if (partition_key_index(schema, p->field) < 0)
				return false;
			if (!exactly_ordered(schema->fields[p->field].type->kind))
				return false;
			return p->literal_type == NULL ||
				ts_type_equal(p->literal_type, schema->fields[p->field].type);
		default:
			return false;		/* NOT, STARTS_WITH */
	}
}

int
ts_split_partition_satisfies(const ts_plan *plan, const ts_split *split,
							 const ts_predicate *p)
{
	const ts_schema *schema = plan->schema;
	int			k,
				r,
				result;

	switch (p->op)
	{
		case TS_PRED_AND:
		case TS_PRED_OR:
			/* three-valued: AND is 0 if any child is 0, OR is 1 if any is 1 */
			result = p->op == TS_PRED_AND ? 1 : 0;
			for (int i = 0; i < p->nchildren; i++)
			{
				r = ts_split_partition_satisfies(plan, split, &p->children[i]);
				if (r == (p->op == TS_PRED_AND ? 0 : 1))
					return r;
				if (r < 0)
					result = -1;
			}
			return p->nchildren == 0 ? -1 : result;
		default:
			break;
	}
	if (!ts_predicate_exact_on_partitions(p, schema))
		return -1;
	k = partition_key_index(schema, p->field);
	if (split->partition_values == NULL || k >= schema->npartition_keys)
		return -1;
	return ts_predicate_leaf_decide(p, schema->fields[p->field].type, &split->partition_values[k]);
}
