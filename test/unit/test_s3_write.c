/*
 * test_s3_write.c - the object store's writes (s3_write.c, fs_s3_write.c)
 * against a canned-answer HTTP server on 127.0.0.1 (a forked child that
 * reads each request whole, body included, records its head, and answers
 * with the next answer of a script): a conditional PUT sends
 * "If-None-Match: *" and takes 412 as TS_ERR_EXISTS; an exclusive create
 * whose first answer was lost and whose retry gets 412 is ours when the
 * object holds our bytes, and another writer's when it does not; a file
 * over one part goes up as a multipart upload (start, parts in order with
 * their ETags, complete), a 200 carrying an <Error> fails it and aborts
 * the upload; a store that honours If-None-Match passes the probe, one that
 * ignores it fails it with "cannot commit atomically", and the probe object
 * is deleted either way; a write outside the fs's scope says "write" and
 * sends nothing.
 */
#include "unit.h"
#include "forked_child.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <strings.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_fs_write.h"
#include "base/ts_s3.h"

static pid_t server_pid = -1;
static char reqfile[64];
static char endpoint[64];

/* Read one request's head and its Content-Length body from c; the head into buf. */
static size_t
read_request(int c, char *buf, size_t cap)
{
	size_t		got = 0;
	char	   *end = NULL;
	long long	body = 0;
	const char *cl;

	while (got < cap - 1 && (end = strstr(buf, "\r\n\r\n")) == NULL)
	{
		ssize_t		r = read(c, buf + got, cap - 1 - got);

		if (r <= 0)
			return got;
		got += (size_t) r;
		buf[got] = '\0';
	}
	if (end == NULL)
		return got;
	for (cl = buf; cl < end; cl++)
		if (strncasecmp(cl, "\r\ncontent-length:", 17) == 0)
		{
			body = atoll(cl + 17);
			break;
		}
	body -= (long long) (got - (size_t) (end + 4 - buf));
	while (body > 0)
	{
		char		sink[65536];
		ssize_t		r = read(c, sink, body < (long long) sizeof(sink) ? (size_t) body : sizeof(sink));

		if (r <= 0)
			break;
		body -= r;
	}
	end[4] = '\0';
	return (size_t) (end + 4 - buf);
}

/*
 * Answer the next n requests with answers[0..n-1] (the last again after),
 * one connection each; an empty answer closes the connection unanswered.
 * Each request's head is appended to reqfile.
 */
static void
serve(const char *const *answers, int n)
{
	int			s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {0};
	socklen_t	al = sizeof(a);
	int			one = 1;
	pid_t		self = getpid();

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *) &a, sizeof(a)), 0);
	assert_int_equal(listen(s, 64), 0);
	getsockname(s, (struct sockaddr *) &a, &al);
	snprintf(reqfile, sizeof(reqfile), "/tmp/ts_unit_s3_write.%d", (int) self);
	unlink(reqfile);
	snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d", ntohs(a.sin_port));
	server_pid = fork();
	assert_true(server_pid >= 0);
	if (server_pid == 0)
	{
		unit_forked_child(self, 0);
		for (int k = 0;; k++)
		{
			int			c = accept(s, NULL, NULL);
			static char buf[16384];
			const char *ans = answers[k < n ? k : n - 1];
			size_t		len;
			FILE	   *f;

			if (c < 0)
				_exit(0);
			buf[0] = '\0';
			len = read_request(c, buf, sizeof(buf));
			if ((f = fopen(reqfile, "a")) != NULL)
			{
				fwrite(buf, 1, len, f);
				fclose(f);
			}
			if (ans[0] != '\0' && write(c, ans, strlen(ans)) < 0)
				_exit(1);
			shutdown(c, SHUT_WR);
			close(c);
		}
	}
	close(s);
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
	unlink(reqfile);
}

/* How many request lines start with line (e.g. "PUT /b/t/snapshot/snapshot-1 ")? */
static int
seen(const char *line)
{
	return unit_lines_starting(reqfile, line);
}

/* An fs over the server for s3://b/t, confined to it when confined. */
static ts_fs *
fs_for_server(bool confined)
{
	static ts_s3_config cfg;
	ts_fs_settings settings = {&cfg};
	ts_fs_scope scope;
	const char *roots[1] = {"s3://b/t"};
	ts_err		err = {0};
	ts_fs	   *fs;

	memset(&cfg, 0, sizeof(cfg));
	cfg.endpoint = endpoint;
	cfg.path_style = true;
	cfg.path_style_set = true;
	cfg.max_attempts = 3;
	cfg.max_retry_ms = 5000;
	if (confined)
		assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for("s3://b/t", &settings, confined ? &scope : NULL, &err);
	assert_non_null(fs);
	if (confined)
		ts_fs_scope_free(&scope);
	return fs;
}

#define OK200 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
#define E412 "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
#define NO_CONTENT "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"

static void
test_conditional_put(void **state)
{
	const char *answers[] = {E412};
	ts_err		err = {0};

	(void) state;
	serve(answers, 1);
	{
		ts_fs	   *fs = fs_for_server(false);
		ts_s3_config cfg = *ts_fs_s3_config(fs);

		assert_false(ts_s3_put(&cfg, "s3://b/t/snapshot/snapshot-1", "{}", 2, true, &err));
		assert_int_equal(err.code, TS_ERR_EXISTS);
		assert_int_equal(seen("PUT /b/t/snapshot/snapshot-1 "), 1);
		{
			FILE	   *f = fopen(reqfile, "r");
			char		all[16384] = "";

			assert_non_null(f);
			assert_true(fread(all, 1, sizeof(all) - 1, f) > 0);
			fclose(f);
			assert_non_null(strstr(all, "If-None-Match: *"));
		}
		ts_fs_free(fs);
	}
	stop();
}

/* The first answer lost, the retry's 412: ours by content, else another writer's. */
static void
test_create_lost_answer(void **state)
{
	const char *ours[] = {"", E412,
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nabcde"};
	const char *theirs[] = {"", E412,
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nabcdX"};
	ts_err		err = {0};
	ts_fs	   *fs;

	(void) state;
	serve(ours, 3);
	fs = fs_for_server(false);
	if (!ts_fs_create_exclusive(fs, "s3://b/t/snapshot/snapshot-2", "abcde", 5, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen("PUT /b/t/snapshot/snapshot-2 "), 2);
	assert_int_equal(seen("GET /b/t/snapshot/snapshot-2 "), 1);
	ts_fs_free(fs);
	stop();

	serve(theirs, 3);
	fs = fs_for_server(false);
	assert_false(ts_fs_create_exclusive(fs, "s3://b/t/snapshot/snapshot-2", "abcde", 5, &err));
	assert_int_equal(err.code, TS_ERR_EXISTS);
	assert_non_null(strstr(err.msg, "snapshot-2"));
	ts_fs_free(fs);
	stop();
}

#define PART_BYTES ((size_t) 8 << 20)

/* Write len bytes through fs as one data file; the result of finishing it. */
static bool
write_file(ts_fs *fs, size_t len, ts_err *err)
{
	ts_fs_writer *w = ts_fs_writer_open(fs, "s3://b/t/bucket-0/data-1.parquet", err);
	char	   *chunk = calloc(1, 1 << 20);
	bool		ok = w != NULL && chunk != NULL;

	for (size_t off = 0; ok && off < len; off += 1 << 20)
		ok = ts_fs_writer_write(w, chunk, len - off < (1 << 20) ? len - off : 1 << 20, err);
	if (ok)
		assert_int_equal(ts_fs_writer_size(w), (int64_t) len);
	ok = ok && ts_fs_writer_finish(w, err);
	free(chunk);
	return ok;
}

static void
test_multipart(void **state)
{
	const char *answers[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 87\r\nConnection: close\r\n\r\n"
		"<InitiateMultipartUploadResult><UploadId>up1</UploadId></InitiateMultipartUploadResult>",
		"HTTP/1.1 200 OK\r\nETag: \"e1\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 200 OK\r\nETag: \"e2\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 77\r\nConnection: close\r\n\r\n"
		"<CompleteMultipartUploadResult><ETag>x</ETag></CompleteMultipartUploadResult>",
	};
	const char *failing[] = {answers[0], answers[1], answers[2],
		"HTTP/1.1 200 OK\r\nContent-Length: 41\r\nConnection: close\r\n\r\n"
		"<Error><Code>InternalError</Code></Error>",
	NO_CONTENT};
	const char *small[] = {OK200};
	ts_err		err = {0};
	ts_fs	   *fs;

	(void) state;
	/* below one part: a single PUT */
	serve(small, 1);
	fs = fs_for_server(false);
	if (!write_file(fs, 1000, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen("PUT /b/t/bucket-0/data-1.parquet HTTP"), 1);
	assert_int_equal(seen("POST "), 0);
	ts_fs_free(fs);
	stop();

	/* one part and a bit: start, two parts, complete */
	serve(answers, 4);
	fs = fs_for_server(false);
	if (!write_file(fs, PART_BYTES + 1000, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen("POST /b/t/bucket-0/data-1.parquet?uploads= "), 1);
	assert_int_equal(seen("PUT /b/t/bucket-0/data-1.parquet?partNumber=1&uploadId=up1 "), 1);
	assert_int_equal(seen("PUT /b/t/bucket-0/data-1.parquet?partNumber=2&uploadId=up1 "), 1);
	assert_int_equal(seen("POST /b/t/bucket-0/data-1.parquet?uploadId=up1 "), 1);
	ts_fs_free(fs);
	stop();

	/* exactly one part's bytes: one PUT, the last part is never empty */
	serve(small, 1);
	fs = fs_for_server(false);
	if (!write_file(fs, PART_BYTES, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen("PUT "), 1);
	assert_int_equal(seen("POST "), 0);
	ts_fs_free(fs);
	stop();

	/* a completion answered 200 with an error: failed, the upload aborted */
	serve(failing, 5);
	fs = fs_for_server(false);
	assert_false(write_file(fs, PART_BYTES + 1000, &err));
	assert_non_null(strstr(err.msg, "InternalError"));
	assert_int_equal(seen("DELETE /b/t/bucket-0/data-1.parquet?uploadId=up1 "), 1);
	ts_fs_free(fs);
	stop();
}

static void
test_probe(void **state)
{
	const char *honours[] = {OK200, E412, NO_CONTENT};
	const char *ignores[] = {OK200, OK200, NO_CONTENT};
	ts_err		err = {0};
	ts_fs	   *fs;

	(void) state;
	serve(honours, 3);
	fs = fs_for_server(false);
	if (!ts_fs_check_atomic_create(fs, "s3://b/t/snapshot", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen("PUT /b/t/snapshot/.tablescan-conditional-put-probe-"), 2);
	assert_int_equal(seen("DELETE /b/t/snapshot/.tablescan-conditional-put-probe-"), 1);
	/* remembered: asked again, nothing is sent */
	assert_true(ts_fs_check_atomic_create(fs, "s3://b/t/snapshot", &err));
	assert_int_equal(seen("PUT "), 2);
	ts_fs_free(fs);
	stop();

	/* another endpoint (port), ignoring the header */
	serve(ignores, 3);
	fs = fs_for_server(false);
	assert_false(ts_fs_check_atomic_create(fs, "s3://b/t/snapshot", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "cannot commit atomically on this store"));
	assert_non_null(strstr(err.hint, "REST catalog"));
	assert_int_equal(seen("DELETE /b/t/snapshot/.tablescan-conditional-put-probe-"), 1);
	ts_fs_free(fs);
	stop();
}

static void
test_write_outside_scope(void **state)
{
	const char *answers[] = {OK200};
	ts_err		err = {0};
	ts_fs	   *fs;

	(void) state;
	serve(answers, 1);
	fs = fs_for_server(true);
	assert_false(ts_fs_put(fs, "s3://b/other/LATEST", "1", 1, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "permission denied to write"));
	assert_false(ts_fs_create_exclusive(fs, "s3://b/t/../other/snapshot-1", "1", 1, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_null(ts_fs_writer_open(fs, "s3://b/other/data.parquet", &err));
	assert_false(ts_fs_delete(fs, "s3://b/other/data.parquet", &err));
	assert_int_equal(seen(""), 0);
	/* inside it: sent */
	assert_true(ts_fs_put(fs, "s3://b/t/snapshot/LATEST", "1", 1, &err));
	assert_int_equal(seen("PUT /b/t/snapshot/LATEST "), 1);
	ts_fs_free(fs);
	stop();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conditional_put),
		cmocka_unit_test(test_create_lost_answer),
		cmocka_unit_test(test_multipart),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_write_outside_scope),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
