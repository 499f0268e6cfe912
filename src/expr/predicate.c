/*
 * predicate.c - the walk every pruning decision makes over a predicate
 * tree (predicate.h).
 *
 * Owns: "may some row satisfy p?" over AND / OR / NOT, given a leaf test:
 * AND fails when one child fails, OR holds when one child holds (an empty
 * OR holds, as an empty filter does), and NOT is never used to prune (the
 * negation of a "may" is not a "cannot").  Partition pruning, directory
 * pruning of format tables and statistics (files, row groups) each supply
 * only their leaf.
 */
#include "expr/predicate.h"

bool
ts_predicate_may_match(const ts_predicate *p, ts_leaf_may_match_fn leaf, void *arg)
{
	switch (p->op)
	{
		case TS_PRED_AND:
			for (int i = 0; i < p->nchildren; i++)
				if (!ts_predicate_may_match(&p->children[i], leaf, arg))
					return false;
			return true;
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (ts_predicate_may_match(&p->children[i], leaf, arg))
					return true;
			return p->nchildren == 0;
		case TS_PRED_NOT:
			return true;
		default:
			return leaf(p, arg);
	}
}
