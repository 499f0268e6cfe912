/*
 * s3_sink.c - where the answer of one S3 request goes, as curl delivers it.
 *
 * Owns: the body callback (a 2xx body into the caller's fixed buffer of a
 * ranged GET or into a growing buffer capped at the request's limit, an
 * error body kept short for its message) and the header callback
 * (Content-Range of a 206, a Content-Length past the cap that stops the
 * transfer before any byte is stored).  Used by s3.c and s3_batch.c alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/s3_internal.h"

/* Largest body allocated whole at its first byte, from the size it should have. */
#define PREALLOC_MAX ((int64_t) 64 << 20)

/*
 * The first allocation of a growing body: the whole of it when its size is
 * known (the size the metadata gives, else the answer's Content-Length),
 * so that it is neither copied as it grows nor allocated twice; at most
 * PREALLOC_MAX (a larger or lying size grows as any body, up to max_body).
 */
static size_t
first_capacity(s3_sink *s)
{
	curl_off_t	cl = -1;
	int64_t		want = s->size_hint;

	if (want <= 0 && ts_curl_fn.easy_getinfo(s->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK)
		want = (int64_t) cl;
	if (want > 0 && want <= PREALLOC_MAX && (size_t) want < s->max_body)
		return (size_t) want + 1 > 16384 ? (size_t) want + 1 : 16384;
	return 16384;
}

/*
 * Does a 2xx answer to a whole GET or a listing announce more than the cap
 * (Content-Length)?  Then the sink overflows before a byte is kept.
 */
static bool
body_announced_too_large(s3_sink *s)
{
	curl_off_t	cl = -1;
	long		status = 0;

	if (s->fixed || s->max_body == 0)
		return false;
	ts_curl_fn.easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299)
		return false;
	if (ts_curl_fn.easy_getinfo(s->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
		cl >= 0 && (uint64_t) cl + 1 > (uint64_t) s->max_body)
	{
		s->overflow = true;
		return true;
	}
	return false;
}

size_t
s3_sink_on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	s3_sink    *s = arg;
	size_t		n = size * nmemb;

	if (s->status == 0)
		ts_curl_fn.easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status < 200 || s->status > 299)
	{
		size_t		room = sizeof(s->errbody) - 1 - s->errlen;
		size_t		k = n < room ? n : room;

		memcpy(s->errbody + s->errlen, ptr, k);
		s->errlen += k;
		s->errbody[s->errlen] = '\0';
		return n;
	}
	if (s->fixed && (s->status == 200 || s->status == 206))
	{
		/*
		 * Take the bytes asked for from what came: a store may ignore the
		 * range (200, the whole object) or answer a wider one (206 with its
		 * Content-Range); bytes beyond the range are dropped, missing ones
		 * leave got short.
		 */
		int64_t		from;
		int64_t		to;

		if (!s->pos_set)
		{
			s->pos = s->status == 200 ? 0 : s->range_start >= 0 ? s->range_start : s->fixed_offset;
			s->pos_set = true;
		}
		from = s->pos > s->fixed_offset ? s->pos : s->fixed_offset;
		to = s->pos + (int64_t) n;
		if (to > s->fixed_offset + (int64_t) s->fixed_len)
			to = s->fixed_offset + (int64_t) s->fixed_len;
		if (to > from)
		{
			memcpy(s->fixed + (from - s->fixed_offset), ptr + (from - s->pos), (size_t) (to - from));
			s->got += (size_t) (to - from);
		}
		s->pos += (int64_t) n;
		if (s->pos - s->fixed_offset > (int64_t) s->fixed_len + ((int64_t) 64 << 20))
		{
			s->overflow = true;	/* far more than asked: not worth reading on */
			return 0;
		}
		return n;
	}
	if (s->fixed)
	{
		if (s->got + n > s->fixed_len)
		{
			s->overflow = true;
			return 0;
		}
		memcpy(s->fixed + s->got, ptr, n);
		s->got += n;
		return n;
	}
	if (s->got == 0 && body_announced_too_large(s))
		return 0;
	if (s->got + n + 1 > s->max_body)
	{
		s->overflow = true;		/* more than the cap while reading (an endless body) */
		return 0;
	}
	if (s->got + n + 1 > s->grow_cap)
	{
		size_t		cap = s->grow_cap ? s->grow_cap : first_capacity(s);
		uint8_t    *d;

		while (cap < s->got + n + 1)
			cap *= 2;
		{
			void	   *prev = ts_alloc_switch(s->owner);

			d = ts_realloc(s->grow, cap);
			ts_alloc_switch(prev);
		}
		if (d == NULL)
		{
			s->nomem = true;
			return 0;
		}
		s->grow = d;
		s->grow_cap = cap;
	}
	memcpy(s->grow + s->got, ptr, n);
	s->got += n;
	s->grow[s->got] = '\0';
	return n;
}

/*
 * Headers of an answer: Content-Range (bytes a-b/total of a 206), and the
 * end of the headers, where a Content-Length past the cap stops the transfer.
 */
size_t
s3_sink_on_header(char *buf, size_t size, size_t nitems, void *arg)
{
	s3_sink    *s = arg;
	size_t		n = size * nitems;
	static const char name[] = "content-range:";
	static const char etag[] = "etag:";

	if ((n == 2 && buf[0] == '\r' && buf[1] == '\n') || (n == 1 && buf[0] == '\n'))
		return body_announced_too_large(s) ? 0 : n;

	if (n > sizeof(etag) && strncasecmp(buf, etag, sizeof(etag) - 1) == 0)
	{
		const char *v = buf + sizeof(etag) - 1;
		size_t		k = n - (sizeof(etag) - 1);

		while (k > 0 && (*v == ' ' || *v == '\t'))
			v++, k--;
		while (k > 0 && (v[k - 1] == '\r' || v[k - 1] == '\n' || v[k - 1] == ' '))
			k--;
		if (k < sizeof(s->etag))
		{
			memcpy(s->etag, v, k);
			s->etag[k] = '\0';
		}
	}
	if (n > sizeof(name) && strncasecmp(buf, name, sizeof(name) - 1) == 0)
	{
		char		line[128];
		long long	a,
					b;
		size_t		k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

		memcpy(line, buf, k);
		line[k] = '\0';
		if (sscanf(line + sizeof(name) - 1, " bytes %lld-%lld", &a, &b) == 2 && a >= 0 && b >= a)
		{
			const char *slash = strchr(line, '/');
			long long	total;

			s->range_start = a;
			s->range_end = b;
			if (slash && sscanf(slash + 1, "%lld", &total) == 1 && total > b)
				s->range_total = total;
		}
		else if (sscanf(line + sizeof(name) - 1, " bytes */%lld", &a) == 1 && a >= 0)
			s->range_total = a;	/* a 416's: the object's size */
	}
	return n;
}

