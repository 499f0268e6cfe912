/*
 * test_s3_answers.c - how the object store client judges answers that are
 * well-formed HTTP but not what was asked, against a canned-answer HTTP
 * server on 127.0.0.1 (a forked child answering each connection with the
 * next answer of a script, then closing it): a 206 short of the range
 * under a Content-Length that agrees with the short body, a 206 whose
 * Content-Range is off the bytes asked for, a whole object cut short under
 * an agreeing Content-Length (seen by the size in Content-Range of the
 * "bytes=0-" request), a 200 to a ranged GET; each retried as a reset is,
 * and an ERROR naming the object when every attempt is so; a range past
 * the object's end fails at once; an empty object (416 "bytes * /0") reads
 * as empty.  Alone (s3.c) and in a batch (s3_batch.c).  Faults found by
 * test/reliability/s3faults.sh.  The whole-object prefetch given the size
 * the metadata names (prefetch.c) refuses a short body whose
 * Content-Length lies with it.  A ranged read whose Content-Range gives
 * another object size than the one it was opened with (a HEAD that lied)
 * is an error; a listing page cut short under an agreeing Content-Length
 * is asked again.  What a hostile store may not make the client do: a
 * whole body past its cap (announced or endless), a listing that repeats
 * its continuation token or runs past max_list_pages, a control character
 * in a setting on the wire, five attempts at a bucket host name that
 * cannot resolve; the SigV4 scope names the configured region; keys past
 * their expiry (a catalog's data token) sign nothing, alone or in a batch;
 * the catalog client's caps and header checks (http.c).
 */
#include "unit.h"
#include "forked_child.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_http.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

static pid_t server_pid = -1;
static char *last_request_file = NULL;

/* the object the server holds: "0123456789" */
#define OBJ "0123456789"

/* An answer that is a 200 with a chunked body that never ends. */
#define ENDLESS "ENDLESS"

static void
send_endless(int c)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	static char chunk[8 + 65536 + 2];
	size_t		n;

	n = (size_t) snprintf(chunk, sizeof(chunk), "10000\r\n");
	memset(chunk + n, 'x', 65536);
	memcpy(chunk + n + 65536, "\r\n", 2);
	if (write(c, head, sizeof(head) - 1) < 0)
		return;
	while (write(c, chunk, n + 65536 + 2) > 0)
		;						/* until the client hangs up */
}

/*
 * Serve answers[0..n-1] to the next n connections (the last one again to
 * any after).  Each request's head is appended to a file (for asserts).
 * Returns the port.
 */
static int
serve(const char *const *answers, int n)
{
	int			s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {0};
	socklen_t	al = sizeof(a);
	int			one = 1;
	pid_t		self;
	static char reqfile[64];

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *) &a, sizeof(a)), 0);
	assert_int_equal(listen(s, 64), 0);
	getsockname(s, (struct sockaddr *) &a, &al);
	snprintf(reqfile, sizeof(reqfile), "/tmp/ts_unit_s3_answers.%d", (int) getpid());
	unlink(reqfile);
	last_request_file = reqfile;
	self = getpid();
	server_pid = fork();
	assert_true(server_pid >= 0);
	if (server_pid == 0)
	{
		/* dies with the test, and holds none of its output open */
		unit_forked_child(self, 0);
		for (int k = 0;; k++)
		{
			int			c = accept(s, NULL, NULL);
			char		buf[8192];
			size_t		got = 0;
			const char *ans = answers[k < n ? k : n - 1];
			FILE	   *f;

			if (c < 0)
				_exit(0);
			while (got < sizeof(buf) - 1)
			{
				ssize_t		r = read(c, buf + got, sizeof(buf) - 1 - got);

				if (r <= 0)
					break;
				got += (size_t) r;
				buf[got] = '\0';
				if (strstr(buf, "\r\n\r\n"))
					break;
			}
			if ((f = fopen(reqfile, "a")) != NULL)
			{
				fwrite(buf, 1, got, f);
				fclose(f);
			}
			if (strcmp(ans, ENDLESS) == 0)
				send_endless(c);
			else if (write(c, ans, strlen(ans)) < 0)
				_exit(1);
			shutdown(c, SHUT_WR);
			close(c);
		}
	}
	close(s);
	return ntohs(a.sin_port);
}

static void
stop(void)
{
	if (server_pid > 0)
	{
		kill(server_pid, SIGKILL);
		waitpid(server_pid, NULL, 0);
	}
	server_pid = -1;
	if (last_request_file)
		unlink(last_request_file);
}

/* The settings configure() made, for the requests of the test running. */
static ts_s3_config configured;

static void
configure(int port, int attempts)
{
	static char endpoint[64];
	ts_s3_config cfg = {0};

	snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d", port);
	cfg.endpoint = endpoint;
	cfg.path_style = true;
	cfg.max_attempts = attempts;
	cfg.max_retry_ms = 10000;
	cfg.max_in_flight = 4;
	configured = cfg;
}

#define A206(range, len, body) \
	"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " range "\r\nContent-Length: " len \
	"\r\nConnection: close\r\n\r\n" body

/* a range short of what was asked, or off it: retried; the right answer then read */
static void
test_range_short_retried(void **state)
{
	static const char *const answers[] = {
		A206("2-4/10", "3", "234"),			/* short, under an agreeing Content-Length */
		A206("3-7/10", "5", "23456"),		/* Content-Range off the bytes sent */
		A206("2-6/10", "5", "23456"),
	};
	char		buf[6] = {0};
	ts_err		err = {0};
	int64_t		before;

	(void) state;
	configure(serve(answers, 3), 5);
	before = ts_s3_request_count();
	assert_true(ts_s3_read_range(&configured, "s3://b/obj", buf, 5, 2, 10, &err));
	assert_string_equal(buf, "23456");
	assert_int_equal(ts_s3_request_count() - before, 3);
	stop();

	/* every attempt short: an error naming the object, the status and the attempts */
	configure(serve(answers, 1), 3);
	assert_false(ts_s3_read_range(&configured, "s3://b/obj", buf, 5, 2, 10, &err));
	assert_non_null(strstr(err.msg, "\"s3://b/obj\" failed after 3 attempts: HTTP 206 with 3 bytes"));
	stop();
}

/* a range past the object's end (Content-Range says so): no retry mends it */
static void
test_range_past_end(void **state)
{
	static const char *const answers[] = {A206("8-9/10", "2", "89")};
	char		buf[5];
	ts_err		err = {0};
	int64_t		before;

	(void) state;
	configure(serve(answers, 1), 5);
	before = ts_s3_request_count();
	assert_false(ts_s3_read_range(&configured, "s3://b/obj", buf, 5, 8, -1, &err));
	assert_int_equal(ts_s3_request_count() - before, 1);
	assert_non_null(strstr(err.msg, "short answer"));
	stop();
}

/* a whole object: sent as bytes=0-; one cut short under an agreeing Content-Length is retried */
static void
test_whole_short_retried(void **state)
{
	static const char *const answers[] = {
		A206("0-4/10", "5", "01234"),		/* half, the header agreeing */
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" OBJ,	/* range ignored */
		A206("0-9/10", "10", OBJ),
	};
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	int64_t		before;
	FILE	   *f;
	char		req[4096] = {0};

	(void) state;
	configure(serve(answers, 3), 5);
	before = ts_s3_request_count();
	assert_true(ts_s3_read_object(&configured, "s3://b/obj", &data, &len, &err));
	assert_int_equal(len, 10);
	assert_memory_equal(data, OBJ, 10);
	free(data);
	assert_int_equal(ts_s3_request_count() - before, 2);
	f = fopen(last_request_file, "r");
	assert_non_null(f);
	assert_true(fread(req, 1, sizeof(req) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(req, "Range: bytes=0-\r\n"));
	stop();

	/* the 206 of the whole object, the first time */
	configure(serve(answers + 2, 1), 5);
	assert_true(ts_s3_read_object(&configured, "s3://b/obj", &data, &len, &err));
	assert_int_equal(len, 10);
	free(data);
	stop();

	/* always short: an error naming the object */
	configure(serve(answers, 1), 2);
	assert_false(ts_s3_read_object(&configured, "s3://b/obj", &data, &len, &err));
	assert_null(data);
	assert_non_null(strstr(err.msg, "GET \"s3://b/obj\" failed after 2 attempts: HTTP 206 with 5 bytes"));
	stop();

	/* an empty object: 416, with the size 0 or without a Content-Range */
	{
		static const char *const empty[] = {
			"HTTP/1.1 416 Requested Range Not Satisfiable\r\nContent-Range: bytes */0\r\n"
			"Content-Length: 0\r\nConnection: close\r\n\r\n"
		};

		static const char *const empty2[] = {	/* without a Content-Range */
			"HTTP/1.1 416 Requested Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
		};

		configure(serve(empty, 1), 5);
		assert_true(ts_s3_read_object(&configured, "s3://b/empty", &data, &len, &err));
		assert_int_equal(len, 0);
		assert_non_null(data);
		free(data);
		stop();
		configure(serve(empty2, 1), 5);
		assert_true(ts_s3_read_object(&configured, "s3://b/empty", &data, &len, &err));
		assert_int_equal(len, 0);
		free(data);
		stop();
	}
}

/* the same judged in a batch: the short and off answers retried, the right bytes kept */
static void
test_batch_short_retried(void **state)
{
	static const char *const answers[] = {
		A206("0-4/10", "5", "01234"),
		A206("0-4/10", "5", "01234"),
		A206("0-9/10", "10", OBJ),
		A206("0-4/10", "5", "01234"),
	};
	ts_s3_fetch items[2];
	ts_err		err = {0};

	(void) state;
	/* every connection gets the same: the whole object's 206 is short for a whole GET */
	configure(serve(answers, 1), 3);
	memset(items, 0, sizeof(items));
	items[0].uri = "s3://b/a";
	items[0].object_size = -1;
	items[1].uri = "s3://b/b";
	items[1].object_size = -1;
	assert_false(ts_s3_fetch_all(&configured, items, 2, false, &err));
	assert_non_null(strstr(err.msg, "failed after 3 attempts: HTTP 206 with 5 bytes"));
	assert_null(items[0].data);
	assert_null(items[1].data);
	stop();

	/* only the third answer is whole: one item gets it, the other fails twice (keep going) */
	configure(serve(answers, 4), 2);
	assert_true(ts_s3_fetch_all(&configured, items, 2, true, &err));
	assert_true((items[0].code == TS_OK) != (items[1].code == TS_OK));
	for (int i = 0; i < 2; i++)
		if (items[i].code == TS_OK)
		{
			assert_int_equal(items[i].data_len, 10);
			assert_memory_equal(items[i].data, OBJ, 10);
			free(items[i].data);
		}
		else
			assert_null(items[i].data);
	stop();

	/* a whole object of known size: a 200 of another length is short of it */
	{
		static const char *const wrong[] = {
			"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n01234",
			A206("0-9/10", "10", OBJ),
		};

		configure(serve(wrong, 2), 3);
		memset(items, 0, sizeof(items));
		items[0].uri = "s3://b/a";
		items[0].object_size = 10;
		assert_true(ts_s3_fetch_all(&configured, items, 1, false, &err));
		assert_int_equal(items[0].data_len, 10);
		free(items[0].data);
		stop();
	}
}

/*
 * A store that ignores the Range and sends a short body under a
 * Content-Length that agrees with it: nothing in the answer shows it, but
 * the size a manifest gives does.  The prefetch retries such an answer and,
 * when every attempt is short, leaves the object out (its own open then
 * goes to the store and reports what it answers), never 5 bytes of 10.
 */
static void
test_prefetch_known_size(void **state)
{
	static const char *const lie[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n01234",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" OBJ,
	};
	const char *paths[1] = {"s3://b/t/bucket-0/data-0.parquet"};
	int64_t		sizes[1] = {10};
	const uint8_t *data;
	size_t		len;
	ts_err		err = {0};
	ts_prefetch *p;
	int64_t		before;
	ts_fs_settings settings = {&configured};
	ts_fs	   *fs;

	(void) state;
	/* always short: retried, then refused */
	configure(serve(lie, 1), 3);
	fs = ts_fs_open_for(paths[0], &settings, NULL, &err);
	assert_non_null(fs);
	before = ts_s3_request_count();
	p = ts_prefetch_objects_sized(fs, paths, sizes, 1, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count() - before, 3);
	assert_int_equal(ts_prefetch_count(p), 0);
	assert_false(ts_prefetch_find(fs, paths[0], &data, &len));
	ts_prefetch_free(p);
	/* the size unknown: the short body is taken at its word (what the size catches) */
	before = ts_s3_request_count();
	p = ts_prefetch_objects(fs, paths, 1, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count() - before, 1);
	assert_true(ts_prefetch_find(fs, paths[0], &data, &len));
	assert_int_equal(len, 5);
	ts_prefetch_free(p);
	stop();

	/* short once, then whole: the retry's 10 bytes kept (started ahead, then waited for) */
	ts_fs_free(fs);
	configure(serve(lie, 2), 3);
	fs = ts_fs_open_for(paths[0], &settings, NULL, &err);
	assert_non_null(fs);
	before = ts_s3_request_count();
	p = ts_prefetch_start_sized(fs, paths, sizes, 1, &err);
	assert_non_null(p);
	assert_true(ts_prefetch_wait(p, &err));
	assert_int_equal(ts_s3_request_count() - before, 2);
	assert_true(ts_prefetch_find(fs, paths[0], &data, &len));
	assert_int_equal(len, 10);
	assert_memory_equal(data, OBJ, 10);
	ts_prefetch_free(p);
	ts_fs_free(fs);
	stop();
}

/*
 * The size an object was opened with (a HEAD's) and the one a ranged
 * read's Content-Range gives differ: an error naming the object and both
 * sizes, not bytes read at the wrong place (a HEAD that lied).
 */
static void
test_range_other_size(void **state)
{
	static const char *const answers[] = {A206("0-4/20", "5", "01234")};
	char		buf[5];
	ts_err		err = {0};

	(void) state;
	configure(serve(answers, 1), 3);
	assert_false(ts_s3_read_range(&configured, "s3://b/obj", buf, 5, 0, 10, &err));
	assert_non_null(strstr(err.msg, "\"s3://b/obj\": a ranged read gives its size as 20 bytes, not the 10"));
	/* the same answer to an object opened with its true size is read */
	assert_true(ts_s3_read_range(&configured, "s3://b/obj", buf, 5, 0, 20, &err));
	assert_memory_equal(buf, "01234", 5);
	stop();
}

/*
 * A store that ignores Range answers 200 with the whole object: its
 * Content-Length must be the size the object was opened with (the
 * manifest's), or the read is an error naming both sizes, even when the
 * range fits in the body; of that size, the range's bytes are read.
 */
static void
test_range_whole_other_size(void **state)
{
	static const char *const answers[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789"};
	char		buf[5];
	ts_err		err = {0};

	(void) state;
	configure(serve(answers, 1), 3);
	assert_false(ts_s3_read_range(&configured, "s3://b/obj", buf, 3, 2, 12, &err));
	assert_non_null(strstr(err.msg,
						   "\"s3://b/obj\": a ranged read was answered with the whole object, of 10 bytes, not the 12"));
	assert_true(ts_s3_read_range(&configured, "s3://b/obj", buf, 3, 2, 10, &err));
	assert_memory_equal(buf, "234", 3);
	assert_true(ts_s3_read_range(&configured, "s3://b/obj", buf, 3, 2, -1, &err));	/* size unknown */
	assert_memory_equal(buf, "234", 3);
	stop();
}

#define LIST_PAGE \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><Name>b</Name><Prefix>t/</Prefix>" \
	"<IsTruncated>false</IsTruncated><Contents><Key>t/a</Key></Contents><Contents><Key>t/b</Key>" \
	"</Contents></ListBucketResult>"

/*
 * A listing page cut short under a Content-Length that agrees (well-formed
 * HTTP, not XML) is asked again, the entries it gave dropped: never a
 * listing short of entries, and an ERROR when every attempt is so.
 */
static void
test_list_page_cut_retried(void **state)
{
	char		cut[512];
	char		whole[512];
	const char *answers[2];
	char	  **names = NULL;
	int			n = 0;
	ts_err		err = {0};
	int64_t		before;
	size_t		half = strlen(LIST_PAGE) - 40;	/* after t/a's entry, inside t/b's */

	(void) state;
	snprintf(cut, sizeof(cut), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%.*s",
			 half, (int) half, LIST_PAGE);
	snprintf(whole, sizeof(whole), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
			 strlen(LIST_PAGE), LIST_PAGE);
	answers[0] = cut;
	answers[1] = whole;
	configure(serve(answers, 2), 3);
	before = ts_s3_request_count();
	assert_true(ts_s3_list(&configured, "s3://b/t", false, &names, &n, &err));
	assert_int_equal(ts_s3_request_count() - before, 2);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "b");
	ts_free_names(names, n);
	stop();

	configure(serve(answers, 1), 3);
	before = ts_s3_request_count();
	assert_false(ts_s3_list(&configured, "s3://b/t", false, &names, &n, &err));
	assert_int_equal(ts_s3_request_count() - before, 3);
	assert_non_null(strstr(err.msg, "is not XML"));
	stop();
}

/* How many requests the server saw (request lines in its file). */
static int
requests_seen(const char *method)
{
	return unit_lines_starting(last_request_file, method);
}

/* Is needle in what the server was sent? */
static bool
request_has(const char *needle)
{
	FILE	   *f = fopen(last_request_file, "r");
	char		buf[65536];
	size_t		n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/*
 * A whole GET past its cap: announced (a 2 GB Content-Length) it is
 * refused before a byte is kept; an endless chunked body as soon as it
 * passes the cap.  Neither is retried; the error names the object and
 * the cap (TS_ERR_LIMIT).
 */
static void
test_whole_capped(void **state)
{
	const char *huge[] = {"HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n{\"id\": 1"};
	const char *endless[] = {ENDLESS};
	ts_s3_limits small = {(int64_t) 1 << 20, 0, 0};
	ts_s3_limits back = *ts_s3_get_limits();
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	ts_s3_fetch item = {0};

	(void) state;
	configure(serve(huge, 1), 3);
	assert_false(ts_s3_read_object(&configured, "s3://lake/t/snapshot/LATEST", &data, &len, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"s3://lake/t/snapshot/LATEST\""));
	assert_non_null(strstr(err.msg, "8388608 bytes"));
	assert_null(data);
	assert_int_equal(requests_seen("GET "), 1);
	stop();

	ts_s3_set_limits(&small);
	configure(serve(endless, 1), 3);
	assert_false(ts_s3_read_object(&configured, "s3://lake/t/manifest/manifest-list-a-0", &data, &len, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"s3://lake/t/manifest/manifest-list-a-0\""));
	assert_non_null(strstr(err.msg, "1048576 bytes"));
	assert_non_null(strstr(err.msg, "tablescan.max_metadata_object_size"));
	assert_int_equal(requests_seen("GET "), 1);
	stop();

	/* a batch (prefetch) is capped the same way */
	configure(serve(endless, 1), 3);
	item.uri = "s3://lake/t/manifest/manifest-b-0";
	item.object_size = -1;
	assert_false(ts_s3_fetch_all(&configured, &item, 1, false, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "manifest-b-0"));
	assert_null(item.data);
	stop();
	ts_s3_set_limits(&back);
}

#define LIST_TRUNCATED(token) \
	"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><Name>b</Name><Prefix>t/</Prefix>" \
	"<IsTruncated>true</IsTruncated><NextContinuationToken>" token "</NextContinuationToken>" \
	"<Contents><Key>t/a</Key></Contents></ListBucketResult>"

/*
 * A listing whose store hands out the same continuation token again stops
 * at the first repeat (two requests, not a loop until the statement
 * timeout); one longer than max_list_pages stops there.
 */
static void
test_list_endless(void **state)
{
	const char *same[] = {LIST_TRUNCATED("tok1")};
	const char *distinct[] = {LIST_TRUNCATED("t1"), LIST_TRUNCATED("t2"), LIST_TRUNCATED("t3"),
	LIST_TRUNCATED("t4")};
	ts_s3_limits pages = {0, 0, 3};
	ts_s3_limits back = *ts_s3_get_limits();
	char	  **names = NULL;
	int			n = 0;
	ts_err		err = {0};

	(void) state;
	configure(serve(same, 1), 3);
	assert_false(ts_s3_list(&configured, "s3://b/t", false, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "repeats a continuation token"));
	assert_non_null(strstr(err.msg, "\"s3://b/t\""));
	assert_int_equal(requests_seen("GET "), 2);
	assert_true(request_has("continuation-token=tok1"));
	stop();

	ts_s3_set_limits(&pages);
	configure(serve(distinct, 4), 3);
	assert_false(ts_s3_list(&configured, "s3://b/t", false, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "more than 3 pages"));
	assert_int_equal(requests_seen("GET "), 3);
	stop();
	ts_s3_set_limits(&back);
}

/*
 * Signed requests carry a SigV4 credential scope naming the configured
 * region (us-east-1 when none is set), and the session token as its own
 * header; a token with CR/LF is refused before anything is sent.
 */
/* A server answering every request with the whole object (200), as cfg's endpoint. */
static void
serve_whole(ts_s3_config *cfg, char *endpoint, size_t size)
{
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" OBJ;
	const char *answers[] = {ok};

	memset(cfg, 0, sizeof(*cfg));
	snprintf(endpoint, size, "http://127.0.0.1:%d", serve(answers, 1));
	cfg->endpoint = endpoint;
}

static int64_t
wall_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/*
 * Keys with an expiry sign requests until it, none at or past it: the
 * request fails before it is sent (no request counted, none reaching the
 * server), alone or in a batch, naming the object and never the key.
 */
static void
test_expired_keys_not_sent(void **state)
{
	ts_s3_config cfg;
	char		endpoint[64];
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	ts_s3_fetch item;
	int64_t		before;

	(void) state;
	serve_whole(&cfg, endpoint, sizeof(endpoint));
	cfg.access_key = "AKIDRENEWED1";
	cfg.secret_key = "not-a-real-secret";
	cfg.max_attempts = 1;
	cfg.expires_at_ms = wall_ms() + 60000;
	assert_true(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	assert_int_equal(len, 10);
	ts_free(data);
	data = NULL;
	assert_true(request_has("Credential=AKIDRENEWED1/"));
	unlink(last_request_file);

	/* the same keys, expired: nothing sent */
	cfg.expires_at_ms = wall_ms() - 1;
	before = ts_s3_request_count();
	assert_false(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	assert_null(data);
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "GET \"s3://lake/t/obj\": the object store keys (a catalog's data token) expired"));
	assert_non_null(strstr(err.msg, "the request was not sent"));
	assert_null(strstr(err.msg, "AKIDRENEWED1"));
	assert_int_equal(ts_s3_request_count(), before);
	assert_false(request_has("Credential=AKIDRENEWED1/"));

	memset(&item, 0, sizeof(item));
	item.uri = "s3://lake/t/obj";
	item.object_size = -1;
	assert_false(ts_s3_fetch_all(&cfg, &item, 1, false, &err));
	assert_null(item.data);
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "expired"));
	assert_int_equal(ts_s3_request_count(), before);
	assert_false(request_has("Credential=AKIDRENEWED1/"));

	/* renewed keys sign again */
	cfg.access_key = "AKIDRENEWED2";
	cfg.expires_at_ms = wall_ms() + 60000;
	assert_true(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	ts_free(data);
	assert_true(request_has("Credential=AKIDRENEWED2/"));
	stop();
}

static void
test_sigv4_scope(void **state)
{
	ts_s3_config cfg;
	char		endpoint[64];
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};

	(void) state;
	serve_whole(&cfg, endpoint, sizeof(endpoint));
	cfg.region = "eu-north-9";
	cfg.access_key = "AKIDTESTSCOPE";
	cfg.secret_key = "not-a-real-secret";
	cfg.session_token = "session-tok";
	cfg.max_attempts = 1;
	assert_true(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	assert_int_equal(len, 10);
	ts_free(data);
	/* path-style by itself: the endpoint is an IP */
	assert_true(request_has("GET /lake/t/obj HTTP/1.1"));
	assert_true(request_has("Credential=AKIDTESTSCOPE/"));
	assert_true(request_has("/eu-north-9/s3/aws4_request"));
	assert_false(request_has("/us-east-1/"));
	assert_true(request_has("x-amz-security-token: session-tok"));
	assert_false(request_has("not-a-real-secret"));
	unlink(last_request_file);

	cfg.region = NULL;
	assert_true(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	ts_free(data);
	assert_true(request_has("/us-east-1/s3/aws4_request"));
	unlink(last_request_file);

	cfg.session_token = "session-tok\r\nX-Injected: 1";
	assert_false(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "s3.session-token"));
	assert_null(strstr(err.msg, "Injected"));
	assert_int_equal(requests_seen("GET "), 0);
	stop();
}

/*
 * An IP endpoint the user set to virtual-hosted addressing: the bucket's
 * host name cannot resolve, and the first failure is the ERROR, with the
 * hint, not five attempts.
 */
static void
test_virtual_hosted_ip(void **state)
{
	ts_s3_config cfg = {0};
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	int64_t		before;

	(void) state;
	cfg.endpoint = "http://127.0.0.1:1";
	cfg.path_style = false;
	cfg.path_style_set = true;
	cfg.max_attempts = 5;
	before = ts_s3_request_count();
	assert_false(ts_s3_read_object(&cfg, "s3://lake/t/obj", &data, &len, &err));
	assert_int_equal(ts_s3_request_count() - before, 1);
	assert_non_null(strstr(err.msg, "s3://lake/t/obj"));
	assert_non_null(strstr(err.hint, "s3.path.style.access"));
}

/*
 * The catalog client: an answer announcing more than its cap is refused
 * before the body is read (TS_ERR_LIMIT); a bearer token or URL with CR/LF
 * is refused before anything is sent, the value never in the message.
 */
static void
test_http_guards(void **state)
{
	const char *huge[] = {"HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n{"};
	const char *endless[] = {ENDLESS};
	char		url[96];
	ts_http_request req = {0};
	ts_http_response resp = {0};
	ts_err		err = {0};

	(void) state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/config", serve(huge, 1));
	req.url = url;
	req.what = "GET /v1/config";
	req.retries = 0;
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "GET /v1/config"));
	assert_int_equal(requests_seen("GET "), 1);
	stop();

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/config", serve(endless, 1));
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);

	req.bearer = "tok\r\nX-Injected: 1";
	unlink(last_request_file);
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_null(strstr(err.msg, "Injected"));
	req.bearer = NULL;
	snprintf(url, sizeof(url), "http://127.0.0.1:1/v1/a\r\nX-Injected: 1");
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_null(strstr(err.msg, "Injected"));
	assert_int_equal(requests_seen("GET "), 0);
	stop();
}

/*
 * A request's own cap (max_body) holds while the answer arrives: a body
 * announced or streamed past it is refused and named in MB or bytes; one
 * within it is kept whole.
 */
static void
test_http_request_cap(void **state)
{
	static char small[256];
	const char *answers[1];
	const char *endless[] = {ENDLESS};
	char		url[96];
	ts_http_request req = {0};
	ts_http_response resp = {0};
	ts_err		err = {0};

	(void) state;
	snprintf(small, sizeof(small),
			 "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n%0100d", 7);
	answers[0] = small;
	req.what = "GET /v1/small";
	req.retries = 0;
	req.url = url;

	req.max_body = 99;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/small", serve(answers, 1));
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "larger than 99 bytes, the cap of catalog answers"));
	stop();

	req.max_body = 100;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/small", serve(answers, 1));
	assert_true(ts_http_get(&req, &resp, &err));
	assert_int_equal(resp.len, 100);
	assert_int_equal(resp.body[99], '7');
	ts_http_response_free(&resp);
	stop();

	req.max_body = (size_t) 1 << 20;
	req.cap_name = "test answers";
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/small", serve(endless, 1));
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "GET /v1/small: the answer is larger than 1 MB, the cap of test answers"));
	stop();
}

/* a failed assert leaves its test early: the server goes here */
static int
teardown(void **state)
{
	(void) state;
	stop();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_range_short_retried, teardown),
		cmocka_unit_test_teardown(test_http_request_cap, teardown),
		cmocka_unit_test_teardown(test_range_past_end, teardown),
		cmocka_unit_test_teardown(test_whole_short_retried, teardown),
		cmocka_unit_test_teardown(test_batch_short_retried, teardown),
		cmocka_unit_test_teardown(test_prefetch_known_size, teardown),
		cmocka_unit_test_teardown(test_range_other_size, teardown),
		cmocka_unit_test_teardown(test_range_whole_other_size, teardown),
		cmocka_unit_test_teardown(test_list_page_cut_retried, teardown),
		cmocka_unit_test_teardown(test_whole_capped, teardown),
		cmocka_unit_test_teardown(test_list_endless, teardown),
		cmocka_unit_test_teardown(test_sigv4_scope, teardown),
		cmocka_unit_test_teardown(test_expired_keys_not_sent, teardown),
		cmocka_unit_test_teardown(test_virtual_hosted_ip, teardown),
		cmocka_unit_test_teardown(test_http_guards, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
