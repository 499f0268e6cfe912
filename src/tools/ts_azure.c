/*
 * ts_azure.c - the Azure Blob client (src/base/azure*.c) from the shell.
 *
 * Owns nothing but argument handling: test/azure/azure-client.sh drives
 * the client through it against an emulator.  Settings come from the
 * environment: TS_AZURE_ENDPOINT, TS_AZURE_KEY or TS_AZURE_SAS,
 * TS_AZURE_PAGE (listing page size), TS_AZURE_ATTEMPTS, TS_AZURE_TIMEOUT_MS;
 * TS_AZURE_CANCEL_MS makes an interrupt pending that many ms after the start
 * (as a backend's cancel: the client must stop within a poll interval).
 *
 *   ts_azure head URI                       "size N" or "missing"
 *   ts_azure size URI                       "N" (a missing blob is an error)
 *   ts_azure get URI [OFFSET LEN [SIZE]]    the bytes on stdout
 *   ts_azure list URI                       one entry a line
 *   ts_azure put URI FILE                   "created" or "exists"
 *   ts_azure replace URI FILE               "replaced" (Put Blob without a condition)
 *   ts_azure put-blocks URI FILE BYTES      blocks of BYTES, then the block list: "N blocks"
 *   ts_azure delete URI                     "deleted" or "absent"
 *
 * A failure prints "ERROR <code>: <message>" on stderr and exits 1.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "base/ts_azure.h"

static const char *const code_names[] = {
	"OK", "IO", "NOT_FOUND", "CORRUPT", "UNSUPPORTED", "INVALID", "NOMEM", "CANCELED",
	"DENIED", "RANGE", "UNKNOWN_TYPE", "LIMIT"
};

static volatile sig_atomic_t interrupted = 0;

static void
on_alarm(int sig)
{
	(void) sig;
	interrupted = 1;
}

static bool
interrupt_pending(void)
{
	return interrupted != 0;
}

static int
fail(const ts_err *err)
{
	fprintf(stderr, "ERROR %s: %s\n",
			(int) err->code < (int) (sizeof(code_names) / sizeof(code_names[0])) ?
			code_names[err->code] : "?", err->msg);
	return 1;
}

static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *data = NULL;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
		(data = malloc((size_t) n + 1)) == NULL || fread(data, 1, (size_t) n, f) != (size_t) n)
	{
		free(data);
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t) n;
	return data;
}

int
main(int argc, char **argv)
{
	ts_azure_config cfg = {0};
	ts_err		err = {0};
	const char *cmd = argc > 2 ? argv[1] : "";
	const char *uri = argc > 2 ? argv[2] : "";

	cfg.endpoint = getenv("TS_AZURE_ENDPOINT");
	cfg.account_key = getenv("TS_AZURE_KEY");
	cfg.sas_token = getenv("TS_AZURE_SAS");
	cfg.list_page_size = getenv("TS_AZURE_PAGE") ? atoi(getenv("TS_AZURE_PAGE")) : 0;
	cfg.max_attempts = getenv("TS_AZURE_ATTEMPTS") ? atoi(getenv("TS_AZURE_ATTEMPTS")) : 0;
	cfg.timeout_ms = getenv("TS_AZURE_TIMEOUT_MS") ? atol(getenv("TS_AZURE_TIMEOUT_MS")) : 0;
	if (getenv("TS_AZURE_CANCEL_MS"))
	{
		long		ms = atol(getenv("TS_AZURE_CANCEL_MS"));
		struct itimerval t = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};

		signal(SIGALRM, on_alarm);
		ts_set_interrupt_pending_hook(interrupt_pending);
		setitimer(ITIMER_REAL, &t, NULL);
	}
	if (strcmp(cmd, "head") == 0 && argc == 3)
	{
		bool		exists;
		int64_t		size;

		if (!ts_azure_head(&cfg, uri, &exists, &size, &err))
			return fail(&err);
		if (exists)
			printf("size %lld\n", (long long) size);
		else
			printf("missing\n");
		return 0;
	}
	if (strcmp(cmd, "size") == 0 && argc == 3)
	{
		int64_t		size;

		if (!ts_azure_head(&cfg, uri, NULL, &size, &err))
			return fail(&err);
		printf("%lld\n", (long long) size);
		return 0;
	}
	if (strcmp(cmd, "get") == 0 && argc == 3)
	{
		uint8_t    *data;
		size_t		len;

		if (!ts_azure_read_object(&cfg, uri, &data, &len, &err))
			return fail(&err);
		fwrite(data, 1, len, stdout);
		ts_free(data);
		return 0;
	}
	if (strcmp(cmd, "get") == 0 && (argc == 5 || argc == 6))
	{
		long long	off = atoll(argv[3]);
		size_t		len = (size_t) atoll(argv[4]);
		uint8_t    *buf = malloc(len ? len : 1);

		if (buf == NULL ||
			!ts_azure_read_range(&cfg, uri, buf, len, off, argc == 6 ? atoll(argv[5]) : -1, &err))
			return fail(&err);
		fwrite(buf, 1, len, stdout);
		free(buf);
		return 0;
	}
	if (strcmp(cmd, "list") == 0 && argc == 3)
	{
		char	  **names;
		int			n;

		if (!ts_azure_list(&cfg, uri, false, &names, &n, &err))
			return fail(&err);
		for (int i = 0; i < n; i++)
		{
			printf("%s\n", names[i]);
			ts_free(names[i]);
		}
		ts_free(names);
		fprintf(stderr, "requests %lld\n", (long long) ts_azure_request_count());
		return 0;
	}
	if (strcmp(cmd, "put") == 0 && argc == 4)
	{
		size_t		len = 0;
		uint8_t    *data = read_file(argv[3], &len);
		bool		created;

		if (data == NULL)
		{
			fprintf(stderr, "could not read \"%s\"\n", argv[3]);
			return 2;
		}
		if (!ts_azure_put_if_absent(&cfg, uri, data, len, &created, &err))
			return fail(&err);
		printf("%s\n", created ? "created" : "exists");
		free(data);
		return 0;
	}
	if ((strcmp(cmd, "replace") == 0 && argc == 4) || (strcmp(cmd, "put-blocks") == 0 && argc == 5))
	{
		size_t		len = 0;
		uint8_t    *data = read_file(argv[3], &len);
		size_t		block = argc == 5 ? (size_t) strtoull(argv[4], NULL, 10) : 0;
		int			n = 0;

		if (data == NULL)
		{
			fprintf(stderr, "could not read \"%s\"\n", argv[3]);
			return 2;
		}
		if (argc == 4)
		{
			if (!ts_azure_put(&cfg, uri, data, len, &err))
				return fail(&err);
			printf("replaced\n");
		}
		else
		{
			for (size_t off = 0; block > 0 && off < len; off += block)
				if (!ts_azure_put_block(&cfg, uri, ++n, data + off,
										len - off < block ? len - off : block, &err))
					return fail(&err);
			if (!ts_azure_put_block_list(&cfg, uri, n, &err))
				return fail(&err);
			printf("%d blocks\n", n);
		}
		free(data);
		return 0;
	}
	if (strcmp(cmd, "delete") == 0 && argc == 3)
	{
		bool		existed;

		if (!ts_azure_delete(&cfg, uri, &existed, &err))
			return fail(&err);
		printf("%s\n", existed ? "deleted" : "absent");
		return 0;
	}
	fprintf(stderr, "usage: ts_azure head|size|get|list|put|replace|put-blocks|delete URI [OFFSET LEN [SIZE] | FILE]\n");
	return 2;
}
