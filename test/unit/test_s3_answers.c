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
 * is asked again.
 */
#include "unit.h"
#include "forked_child.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

static pid_t server_pid = -1;
static char *last_request_file = NULL;

/* the object the server holds: "0123456789" */
#define OBJ "0123456789"

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
			if (write(c, ans, strlen(ans)) < 0)
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
	assert_true(ts_s3_set_config(&cfg));
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
	assert_true(ts_s3_read_range("s3://b/obj", buf, 5, 2, 10, &err));
	assert_string_equal(buf, "23456");
	assert_int_equal(ts_s3_request_count() - before, 3);
	stop();

	/* every attempt short: an error naming the object, the status and the attempts */
	configure(serve(answers, 1), 3);
	assert_false(ts_s3_read_range("s3://b/obj", buf, 5, 2, 10, &err));
	assert_non_null(strstr(err.msg, "\"s3://b/obj\" failed after 3 attempts: HTTP 206 with 3 bytes"));
	stop();
	ts_s3_set_config(NULL);
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
	assert_false(ts_s3_read_range("s3://b/obj", buf, 5, 8, -1, &err));
	assert_int_equal(ts_s3_request_count() - before, 1);
	assert_non_null(strstr(err.msg, "short answer"));
	stop();
	ts_s3_set_config(NULL);
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
	assert_true(ts_s3_read_object("s3://b/obj", &data, &len, &err));
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
	assert_true(ts_s3_read_object("s3://b/obj", &data, &len, &err));
	assert_int_equal(len, 10);
	free(data);
	stop();

	/* always short: an error naming the object */
	configure(serve(answers, 1), 2);
	assert_false(ts_s3_read_object("s3://b/obj", &data, &len, &err));
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
		assert_true(ts_s3_read_object("s3://b/empty", &data, &len, &err));
		assert_int_equal(len, 0);
		assert_non_null(data);
		free(data);
		stop();
		configure(serve(empty2, 1), 5);
		assert_true(ts_s3_read_object("s3://b/empty", &data, &len, &err));
		assert_int_equal(len, 0);
		free(data);
		stop();
	}
	ts_s3_set_config(NULL);
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
	assert_false(ts_s3_fetch_all(items, 2, false, &err));
	assert_non_null(strstr(err.msg, "failed after 3 attempts: HTTP 206 with 5 bytes"));
	assert_null(items[0].data);
	assert_null(items[1].data);
	stop();

	/* only the third answer is whole: one item gets it, the other fails twice (keep going) */
	configure(serve(answers, 4), 2);
	assert_true(ts_s3_fetch_all(items, 2, true, &err));
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
		assert_true(ts_s3_fetch_all(items, 1, false, &err));
		assert_int_equal(items[0].data_len, 10);
		free(items[0].data);
		stop();
	}
	ts_s3_set_config(NULL);
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

	(void) state;
	/* always short: retried, then refused */
	configure(serve(lie, 1), 3);
	before = ts_s3_request_count();
	p = ts_prefetch_objects_sized(paths, sizes, 1, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count() - before, 3);
	assert_int_equal(ts_prefetch_count(p), 0);
	assert_false(ts_prefetch_find(paths[0], &data, &len));
	ts_prefetch_free(p);
	/* the size unknown: the short body is taken at its word (what the size catches) */
	before = ts_s3_request_count();
	p = ts_prefetch_objects(paths, 1, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count() - before, 1);
	assert_true(ts_prefetch_find(paths[0], &data, &len));
	assert_int_equal(len, 5);
	ts_prefetch_free(p);
	stop();

	/* short once, then whole: the retry's 10 bytes kept (started ahead, then waited for) */
	configure(serve(lie, 2), 3);
	before = ts_s3_request_count();
	p = ts_prefetch_start_sized(paths, sizes, 1, &err);
	assert_non_null(p);
	assert_true(ts_prefetch_wait(p, &err));
	assert_int_equal(ts_s3_request_count() - before, 2);
	assert_true(ts_prefetch_find(paths[0], &data, &len));
	assert_int_equal(len, 10);
	assert_memory_equal(data, OBJ, 10);
	ts_prefetch_free(p);
	stop();
	ts_s3_set_config(NULL);
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
	assert_false(ts_s3_read_range("s3://b/obj", buf, 5, 0, 10, &err));
	assert_non_null(strstr(err.msg, "\"s3://b/obj\": a ranged read gives its size as 20 bytes, not the 10"));
	/* the same answer to an object opened with its true size is read */
	assert_true(ts_s3_read_range("s3://b/obj", buf, 5, 0, 20, &err));
	assert_memory_equal(buf, "01234", 5);
	stop();
	ts_s3_set_config(NULL);
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
	assert_true(ts_s3_list("s3://b/t", false, &names, &n, &err));
	assert_int_equal(ts_s3_request_count() - before, 2);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "b");
	ts_free_names(names, n);
	stop();

	configure(serve(answers, 1), 3);
	before = ts_s3_request_count();
	assert_false(ts_s3_list("s3://b/t", false, &names, &n, &err));
	assert_int_equal(ts_s3_request_count() - before, 3);
	assert_non_null(strstr(err.msg, "is not XML"));
	stop();
	ts_s3_set_config(NULL);
}

/* a failed assert leaves its test early: the server goes here */
static int
teardown(void **state)
{
	(void) state;
	stop();
	ts_s3_set_config(NULL);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_range_short_retried, teardown),
		cmocka_unit_test_teardown(test_range_past_end, teardown),
		cmocka_unit_test_teardown(test_whole_short_retried, teardown),
		cmocka_unit_test_teardown(test_batch_short_retried, teardown),
		cmocka_unit_test_teardown(test_prefetch_known_size, teardown),
		cmocka_unit_test_teardown(test_range_other_size, teardown),
		cmocka_unit_test_teardown(test_list_page_cut_retried, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
