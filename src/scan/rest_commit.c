/*
 * rest_commit.c - committing a snapshot through the Paimon REST catalog.
 *
 * Owns: the commit endpoint (POST /v1/{prefix}/databases/{db}/tables/
 * {table}/commit, Java's RESTApi.commitSnapshot): the request body of
 * Java's CommitTableRequest ({"tableId", "baseSnapshotUuid", "snapshot",
 * "statistics"}, the snapshot and statistics as the caller rendered them)
 * and its answer (CommitTableResponse {"success": bool}).  The catalog,
 * not this client, creates snapshot-N: a success false (or a 409) says
 * another writer committed first.  The request is sent once: a commit is
 * not retried blindly after an answer that may have been lost.  The bearer
 * token is sent, never shown.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "base/ts_http.h"
#include "scan/ts_rest.h"

/* Largest commit answer read: {"success": true} and an error's message. */
#define COMMIT_MAX_ANSWER ((size_t) 1 << 20)

bool
ts_rest_parse_commit_answer(const char *endpoint, long status, const char *body,
							bool *committed, ts_err *err)
{
	cJSON	   *j,
			   *success;

	*committed = false;
	if (status == 409)
		return true;			/* the snapshot id exists: another writer's */
	if (status < 200 || status > 299)
	{
		ts_http_response r = {status, (char *) body, body ? strlen(body) : 0};

		return ts_rest_answer_error(endpoint, &r, err);
	}
	j = cJSON_Parse(body ? body : "");
	success = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "success") : NULL;
	if (!cJSON_IsBool(success))
	{
		cJSON_Delete(j);
		return ts_error(err, TS_ERR_CORRUPT,
						"REST catalog: %s: field \"success\" of the answer is missing or not a boolean",
						endpoint);
	}
	*committed = cJSON_IsTrue(success);
	cJSON_Delete(j);
	return true;
}

/* The CommitTableRequest body, cJSON_free it; NULL: out of memory or bad caller JSON. */
static char *
commit_body(const char *table_id, const char *base_snapshot_uuid, const char *snapshot_json,
			const char *statistics_json)
{
	cJSON	   *body = cJSON_CreateObject();
	cJSON	   *snapshot = cJSON_Parse(snapshot_json);
	cJSON	   *statistics = cJSON_Parse(statistics_json);
	char	   *text = NULL;

	if (body == NULL || !cJSON_IsObject(snapshot) || !cJSON_IsArray(statistics))
	{
		cJSON_Delete(body);
		cJSON_Delete(snapshot);
		cJSON_Delete(statistics);
		return NULL;
	}
	if (table_id)
		cJSON_AddStringToObject(body, "tableId", table_id);
	else
		cJSON_AddNullToObject(body, "tableId");
	if (base_snapshot_uuid)
		cJSON_AddStringToObject(body, "baseSnapshotUuid", base_snapshot_uuid);
	else
		cJSON_AddNullToObject(body, "baseSnapshotUuid");
	cJSON_AddItemToObject(body, "snapshot", snapshot);
	cJSON_AddItemToObject(body, "statistics", statistics);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

bool
ts_rest_commit_snapshot(ts_rest_catalog *c, const char *database, const char *table,
						const char *table_id, const char *base_snapshot_uuid,
						const char *snapshot_json, const char *statistics_json,
						bool *committed, ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, table, "/commit");
	char	   *endpoint = ts_psprintf("POST databases/%s/tables/%s/commit", database, table);
	char	   *body = commit_body(table_id, base_snapshot_uuid, snapshot_json, statistics_json);
	char	   *url = path ? ts_psprintf("%s%s", c->uri, path) : NULL;
	ts_http_request req = {0};
	ts_http_response r;
	bool		ok;

	*committed = false;
	ts_free(path);
	if (url == NULL || endpoint == NULL || body == NULL)
	{
		ts_free(url);
		ts_free(endpoint);
		cJSON_free(body);
		return ts_error_nomem(err, "a commit request");
	}
	req.url = url;
	req.bearer = c->token;
	req.ca_file = c->ca_file;
	req.what = endpoint;
	req.retries = 0;			/* a lost answer's commit may have landed: never sent twice */
	req.max_body = COMMIT_MAX_ANSWER;
	req.post_json = body;
	ok = ts_http_get(&req, &r, err);
	ts_free(url);
	cJSON_free(body);
	if (ok)
	{
		ok = ts_rest_parse_commit_answer(endpoint, r.status, r.body, committed, err);
		ts_http_response_free(&r);
	}
	ts_free(endpoint);
	return ok;
}
