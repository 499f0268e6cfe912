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

/*
 * The CommitTableRequest body (ts_free it); NULL: out of memory.  The
 * snapshot's JSON goes in as the caller wrote it: a parse and print would
 * turn commitIdentifier (Long.MAX_VALUE) into a rounded double.
 */
char *
ts_rest_commit_body(const char *table_id, const char *base_snapshot_uuid, const char *snapshot_json,
			const char *statistics_json)
{
	cJSON	   *head = cJSON_CreateObject();
	char	   *text = NULL,
			   *body = NULL;

	if (head == NULL)
		return NULL;
	if (table_id)
		cJSON_AddStringToObject(head, "tableId", table_id);
	else
		cJSON_AddNullToObject(head, "tableId");
	if (base_snapshot_uuid)
		cJSON_AddStringToObject(head, "baseSnapshotUuid", base_snapshot_uuid);
	else
		cJSON_AddNullToObject(head, "baseSnapshotUuid");
	text = cJSON_PrintUnformatted(head);
	cJSON_Delete(head);
	/* {"tableId":...,"baseSnapshotUuid":...} without its '}', then the raw members */
	if (text != NULL && strlen(text) > 1)
		body = ts_psprintf("%.*s,\"snapshot\":%s,\"statistics\":%s}", (int) (strlen(text) - 1), text,
						   snapshot_json, statistics_json);
	cJSON_free(text);
	return body;
}

bool
ts_rest_commit_snapshot(ts_rest_catalog *c, const char *database, const char *table,
						const char *table_id, const char *base_snapshot_uuid,
						const char *snapshot_json, const char *statistics_json,
						bool *committed, ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, table, "/commit");
	char	   *endpoint = ts_psprintf("POST databases/%s/tables/%s/commit", database, table);
	char	   *body = ts_rest_commit_body(table_id, base_snapshot_uuid, snapshot_json, statistics_json);
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
		ts_free(body);
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
	ts_free(body);
	if (ok)
	{
		ok = ts_rest_parse_commit_answer(endpoint, r.status, r.body, committed, err);
		ts_http_response_free(&r);
	}
	ts_free(endpoint);
	return ok;
}
