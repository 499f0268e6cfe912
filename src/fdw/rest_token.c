/*
 * rest_token.c - the data tokens a REST catalog vends for its tables.
 *
 * Owns: the backend's cache of table tokens (GET .../tables/{t}/token):
 * one entry per server, role and table, so a table's token is never used
 * for another table or by another role; a token is fetched again once
 * less than tablescan.token_refresh_margin (one hour) is left before its
 * expiry (Java's RESTTokenFileIO: refresh when expiresAt - now <
 * RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS, one hour), and a token
 * without an expiry is not kept (valid for the statement that fetched it).
 * The expiry is the earlier of expiresAt (the OpenAPI document) and
 * expiresAtMillis (Java's GetTableTokenResponse); a token given already
 * expired is an ERROR, never sent.  A token that cannot be fetched or
 * renewed is an ERROR naming the table, never a read without it.  Also
 * when a scan renews the token it reads with (rest.c): the margin, or half
 * the token's life when that is shorter.  ALTER of a user mapping or
 * server drops the whole cache.  The token's values are secrets: they are
 * never shown.
 */
#include "postgres.h"

#include <string.h>
#include <sys/time.h>

#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "tablescan_fdw.h"
#include "scan/ts_rest.h"

/* seconds; Java's RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS is one hour */
int			tablescan_token_refresh_margin_s = 3600;

void
tablescan_rest_token_define_gucs(void)
{
	DefineCustomIntVariable("tablescan.token_refresh_margin",
							"How long before its expiry a REST catalog's data token is fetched again.",
							"A cached token with less than this left is fetched again when a scan "
							"is planned, and a scan reading with one renews it once this much (or "
							"half the token's life, if shorter) is left.  0: only once expired.",
							&tablescan_token_refresh_margin_s, 3600, 0, 7 * 24 * 3600,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
}

static int64
refresh_margin_ms(void)
{
	return (int64) tablescan_token_refresh_margin_s * 1000;
}

typedef struct TokenEntry
{
	struct TokenEntry *next;
	Oid			serverid;
	Oid			userid;
	char	   *database;		/* in TopMemoryContext */
	char	   *table;
	ts_option  *kv;				/* copies in TopMemoryContext */
	int			nkv;
	int64		expires_at_ms;
	int64		fetched_at_ms;
} TokenEntry;

static TokenEntry *tokens = NULL;
static bool callbacks_registered = false;

static void
free_kv(TokenEntry *e)
{
	for (int i = 0; i < e->nkv; i++)
	{
		if (e->kv[i].key)
			pfree((char *) e->kv[i].key);
		if (e->kv[i].value)
		{
			/* a secret: not left behind in freed memory */
			explicit_bzero((char *) e->kv[i].value, strlen(e->kv[i].value));
			pfree((char *) e->kv[i].value);
		}
	}
	if (e->kv)
		pfree(e->kv);
	e->kv = NULL;
	e->nkv = 0;
}

static void
entry_free(TokenEntry *e)
{
	free_kv(e);
	pfree(e->database);
	pfree(e->table);
	pfree(e);
}

static void
drop_all(Datum arg, int cacheid, uint32 hashvalue)
{
	while (tokens)
	{
		TokenEntry *next = tokens->next;

		entry_free(tokens);
		tokens = next;
	}
}

static int64
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static TokenEntry *
find_entry(Oid serverid, Oid userid, const char *database, const char *table, TokenEntry ***link)
{
	TokenEntry **l = &tokens;

	for (; *l; l = &(*l)->next)
		if ((*l)->serverid == serverid && (*l)->userid == userid &&
			strcmp((*l)->database, database) == 0 && strcmp((*l)->table, table) == 0)
		{
			if (link)
				*link = l;
			return *l;
		}
	return NULL;
}

/*
 * e as a token: renewed once the margin is left before its expiry, or half
 * its life when that is shorter (a catalog vending tokens shorter than the
 * margin is not asked again before every batch).
 */
static void
entry_token(const TokenEntry *e, TsDataToken *token)
{
	int64		margin = refresh_margin_ms();

	token->kv = e->kv;
	token->nkv = e->nkv;
	token->expires_at_ms = e->expires_at_ms;
	token->renew_at_ms = 0;
	if (e->expires_at_ms > 0)
		token->renew_at_ms = e->expires_at_ms -
			Min(margin, Max(e->expires_at_ms - e->fetched_at_ms, 0) / 2);
}

/*
 * The data token of database.table for the current role (its options not to
 * be freed: valid until the next call), from the cache or fetched through c.
 */
void
tablescan_rest_table_token(ForeignServer *server, ts_rest_catalog *c, const char *database,
						   const char *table, int64 held_expires_ms, TsDataToken *token)
{
	Oid			userid = tablescan_mapping_user();
	TokenEntry **link = NULL;
	TokenEntry *e = find_entry(server->serverid, userid, database, table, &link);
	ts_option  *fresh = NULL;
	int			nfresh = 0;
	int64_t		expires = 0;
	ts_err		err = {0};
	MemoryContext old;
	bool		ok,
				refreshing;

	if (!callbacks_registered)
	{
		CacheRegisterSyscacheCallback(USERMAPPINGOID, drop_all, (Datum) 0);
		CacheRegisterSyscacheCallback(FOREIGNSERVEROID, drop_all, (Datum) 0);
		callbacks_registered = true;
	}
	if (e && e->expires_at_ms > held_expires_ms &&
		e->expires_at_ms - now_ms() >= refresh_margin_ms())
	{
		entry_token(e, token);
		return;
	}
	ok = ts_rest_get_token(c, database, table, &fresh, &nfresh, &expires, &err);
	/* looked up again: an invalidation may have emptied the cache meanwhile */
	refreshing = e != NULL || held_expires_ms > 0;
	e = find_entry(server->serverid, userid, database, table, &link);
	if (!ok)
	{
		/* a refresh that fails leaves no stale token behind */
		if (e)
		{
			*link = e->next;
			entry_free(e);
		}
		if (err.code == TS_ERR_CANCELED)
			CHECK_FOR_INTERRUPTS();	/* PostgreSQL's own error for a cancel */
		ereport(ERROR,
				(errcode(err.code == TS_ERR_DENIED ? ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION :
						 err.code == TS_ERR_CORRUPT ? ERRCODE_DATA_CORRUPTED : ERRCODE_FDW_ERROR),
				 errmsg("could not %s the data token of Paimon table \"%s.%s\" from the REST catalog of server \"%s\"",
						refreshing ? "refresh" : "get", database, table, server->servername),
				 errdetail("%s", err.msg),
				 refreshing ? errhint("The token it holds expires within tablescan.token_refresh_margin; the catalog refused a new one.") : 0));
	}
	/* a token the catalog gives already expired is never sent */
	if (expires > 0 && expires <= now_ms())
	{
		if (e)
		{
			*link = e->next;
			entry_free(e);
		}
		ts_rest_free_options(fresh, nfresh);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
				 errmsg("the REST catalog of server \"%s\" gave an expired data token for Paimon table \"%s.%s\"",
						server->servername, database, table),
				 errdetail("Its expiry (expiresAtMillis / expiresAt) is " INT64_FORMAT " ms in the past; it was not used.",
						   now_ms() - (int64) expires)));
	}
	if (e == NULL)
	{
		e = MemoryContextAllocZero(TopMemoryContext, sizeof(TokenEntry));
		old = MemoryContextSwitchTo(TopMemoryContext);
		e->serverid = server->serverid;
		e->userid = userid;
		e->database = pstrdup(database);
		e->table = pstrdup(table);
		MemoryContextSwitchTo(old);
		e->next = tokens;
		tokens = e;
	}
	else
		free_kv(e);
	/* the client's answer lives in the query's memory: the cache keeps copies */
	old = MemoryContextSwitchTo(TopMemoryContext);
	e->kv = palloc0(sizeof(ts_option) * Max(nfresh, 1));
	for (int i = 0; i < nfresh; i++)
	{
		e->kv[i].key = fresh[i].key ? pstrdup(fresh[i].key) : NULL;
		e->kv[i].value = fresh[i].value ? pstrdup(fresh[i].value) : NULL;
	}
	e->nkv = nfresh;
	MemoryContextSwitchTo(old);
	ts_rest_free_options(fresh, nfresh);
	/* no expiry given: good for this use only */
	e->expires_at_ms = expires > 0 ? (int64) expires : 0;
	e->fetched_at_ms = now_ms();
	entry_token(e, token);
}
