/*
 * plan_reuse.c - the Paimon plan made while PostgreSQL plans, executed
 * when it still holds.
 *
 * Owns: the setting tablescan.reuse_plan and the backend's offers.
 * GetForeignRelSize plans the scan (for costs and EXPLAIN) in a memory
 * context of its own, a child of the planner's, and offers the plan under
 * a key the ForeignScan node carries (FdwScanPrivatePlanKey: this
 * backend's pid and a counter).  BeginForeignScan takes the offer: its
 * context moves under the executor's, so a portal started by one message
 * (Bind, DECLARE) keeps it for the next (Execute, FETCH).  The first fetch
 * uses the plan when it still holds (scan_rows.c: the same quals, the same
 * options and credentials by fingerprint, its snapshot still the one to
 * read), else frees it and plans again.  Each offer is taken once: a
 * rescan, a parallel worker (another backend) or a cached plan executed
 * again finds none and plans.  An offer nobody takes dies with the
 * planner's memory (plain EXPLAIN, an ERROR before execution), a plan
 * taken with the executor's (end of scan, ERROR): one plan per scan node
 * at most, never longer-lived than the plans made before this existed.
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/value.h"
#include "optimizer/optimizer.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"

bool		tablescan_reuse_plan = true;

struct TsPlanOffer
{
	dlist_node	node;			/* in 'offers' while not taken */
	bool		listed;
	uint64		id;
	MemoryContext cxt;			/* holds the plan, its options, this offer */
	ts_plan    *plan;
	int		   *att_field;		/* attno - 1 -> read-schema field */
	uint64		fingerprint;	/* of the options it was planned with */
	MemoryContextCallback unlist;
};

/* Offers not taken yet, the newest first (a scan takes a recent one). */
static dlist_head offers = DLIST_STATIC_INIT(offers);
static uint64 last_offer_id = 0;

void
tablescan_plan_reuse_define_gucs(void)
{
	DefineCustomBoolVariable("tablescan.reuse_plan",
							 "Execute the Paimon plan made while PostgreSQL planned, when it still holds.",
							 "When on, a scan executes the plan made for its estimates and EXPLAIN "
							 "if its quals need no run-time values, its options and credentials are "
							 "the same and no snapshot was committed since; otherwise (and when off) "
							 "it plans again at its first row.",
							 &tablescan_reuse_plan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/* The fingerprint of what planning with opts depends on (src/scan/reuse.c). */
static uint64
options_fingerprint(TsTableOptions *opts)
{
	ts_scan_context ctx;

	tablescan_make_context(opts, &ctx);
	ctx.enable_pruning = tablescan_enable_pruning;	/* as tablescan_plan_relation */
	return ts_scan_context_fingerprint(&ctx);
}

/* The context a planned scan lives in, a child of the current one. */
MemoryContext
tablescan_plan_context_create(void)
{
	return AllocSetContextCreate(CurrentMemoryContext, "tablescan_fdw plan",
								 ALLOCSET_DEFAULT_SIZES);
}

/* The offer's context is going (reset or deleted): no longer to be taken. */
static void
unlist_offer(void *arg)
{
	TsPlanOffer *offer = arg;

	if (offer->listed)
		dlist_delete(&offer->node);
	offer->listed = false;
}

/*
 * Offer plan, made in cxt (tablescan_plan_context_create) with opts, for
 * the executor to take.  The key, a String node for fdw_private.
 */
Node *
tablescan_plan_offer(MemoryContext cxt, TsTableOptions *opts, ts_plan *plan, int *att_field)
{
	TsPlanOffer *offer = MemoryContextAllocZero(cxt, sizeof(TsPlanOffer));
	MemoryContext old = MemoryContextSwitchTo(cxt);

	offer->fingerprint = options_fingerprint(opts);
	MemoryContextSwitchTo(old);
	offer->id = ++last_offer_id;
	offer->cxt = cxt;
	offer->plan = plan;
	offer->att_field = att_field;
	offer->unlist.func = unlist_offer;
	offer->unlist.arg = offer;
	MemoryContextRegisterResetCallback(cxt, &offer->unlist);
	dlist_push_head(&offers, &offer->node);
	offer->listed = true;
	return (Node *) makeString(psprintf("%d:" UINT64_FORMAT, MyProcPid, offer->id));
}

/*
 * Take the offer of key (NULL when there is none in this backend: taken
 * already, freed, or made by another process); its context moves under
 * owner.
 */
TsPlanOffer *
tablescan_plan_take(Node *key, MemoryContext owner)
{
	int			pid;
	uint64		id;
	dlist_iter	it;

	if (key == NULL || !IsA(key, String) ||
		sscanf(strVal(key), "%d:" UINT64_FORMAT, &pid, &id) != 2 || pid != MyProcPid)
		return NULL;
	dlist_foreach(it, &offers)
	{
		TsPlanOffer *offer = dlist_container(TsPlanOffer, node, it.cur);

		if (offer->id != id)
			continue;
		dlist_delete(&offer->node);
		offer->listed = false;
		MemoryContextSetParent(offer->cxt, owner);
		return offer;
	}
	return NULL;
}

/* Does the expression hold a Param (prepared statement, nested loop, InitPlan)? */
static bool
has_params_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_params_walker, context);
}

bool
tablescan_expr_has_params(Node *node)
{
	return has_params_walker(node, NULL);
}

/*
 * Why the taken plan does not hold for a scan with quals and opts (the
 * executor's, for the scan's user), or NULL when it does: reuse turned
 * off, quals that need run-time values (Params, functions evaluated at
 * run time: the planner pruned without them), other options or
 * credentials, a snapshot committed since.  A data token due for renewal
 * is renewed first (the check reads the table's store).
 */
static const char *
refusal(TsPlanOffer *offer, List *quals, TsTableOptions *opts)
{
	if (!tablescan_reuse_plan)
		return "tablescan.reuse_plan is off";
	if (tablescan_expr_has_params((Node *) quals) || contain_mutable_functions((Node *) quals))
		return "the quals need values known only at run time";
	if (opts->pin_snapshot)
		return "a parallel worker reads its leader's snapshot";
	if (offer->plan->pending_files_total > 0 || tablescan_has_pending_writes(opts))
		return "the transaction has written into the table";
	if (options_fingerprint(opts) != offer->fingerprint)
		return "the options or credentials changed since planning";
	if (opts->token)
		tablescan_rest_renew_token(opts, offer->plan);
	if (!ts_plan_is_current(offer->plan))
		return offer->plan->kind == TS_TABLE_FORMAT ?
			"a format table is listed again" :
			"the snapshot planned may no longer be the one to read";
	return NULL;
}

/*
 * The plan taken (*offerp, may be NULL) when it holds for a scan of rel
 * with quals and opts: returned, its column map in *att_field, moved
 * under owner when that is not NULL (else it stays where it was taken
 * to).  Otherwise it is freed and NULL returned: the caller plans.  The
 * offer is used up either way (*offerp = NULL).  DEBUG1 says which, and why.
 */
ts_plan *
tablescan_plan_reuse(TsPlanOffer **offerp, Relation rel, List *quals, TsTableOptions *opts,
					 MemoryContext owner, int **att_field)
{
	TsPlanOffer *offer = *offerp;
	const char *why;

	*offerp = NULL;
	if (offer == NULL)
		return NULL;
	why = refusal(offer, quals, opts);
	if (why != NULL)
	{
		elog(DEBUG1, "tablescan_fdw: foreign table \"%s\" planned again at execution: %s",
			 RelationGetRelationName(rel), why);
		MemoryContextDelete(offer->cxt);
		return NULL;
	}
	elog(DEBUG1, "tablescan_fdw: foreign table \"%s\" executes the plan made while planning",
		 RelationGetRelationName(rel));
	if (owner)
		MemoryContextSetParent(offer->cxt, owner);
	*att_field = offer->att_field;
	return offer->plan;
}
