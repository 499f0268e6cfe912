/*
 * parallel.c - what the processes of a Parallel Foreign Scan share.
 *
 * Owns: the scan's state in the query's dynamic shared memory and the
 * rules around it.  Every process (the leader and each worker) plans the
 * Paimon scan itself, from the same options, quals and Params; the leader
 * publishes the snapshot it planned, and the others read that snapshot
 * instead of the latest one, so a commit while the workers start changes
 * nothing.  The leader also publishes a fingerprint of its tasks (the
 * files, parts of files and splits to read, with their deletion vectors); a process whose
 * own plan has another fingerprint (a table whose reads cannot be pinned,
 * e.g. a fallback branch or a format table's directory, changed in
 * between) raises an ERROR rather than read a different set of files.
 * The tasks (a split, one of its files, or a part of a large file, the
 * largest first) are made here and handed out by an atomic counter; the
 * workers' EXPLAIN ANALYZE figures are summed here for the leader.  The
 * parts of a CSV file start where records start, which only a pass over
 * the file can tell (a quoted field may hold line breaks): the leader
 * finds them (format/text/csv_part_starts.c) and publishes them here, the
 * others read them from here; a file they do not fit here is read whole.
 *
 * Prefetch: a process claims its tasks in small groups of consecutive
 * ones (tablescan_parallel_claim: one fetch-and-add, so every task goes
 * to exactly one process) and, when it starts reading a group of a table
 * on an object store, claims the next group and starts fetching that
 * group's small files (scan_rows.c,
 * read/split_window.c) while it reads the first.  A group is at most
 * TS_PARALLEL_GROUP_MAX tasks and at most the unclaimed tasks over twice
 * the processes planned, and a single task while the next task is a part
 * of a large file (read by ranges, nothing to fetch whole): a process
 * holds at most two groups it has not read, and near the end (the tasks
 * are sorted largest first, so the last are the smallest) groups shrink to
 * one task, so the processes still finish together.  A rescan publishes
 * the tasks again (the counter back to 0) and each process drops the
 * groups it had claimed before.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "port/atomics.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "read/read.h"

/* Room for the part starts of CSV files, with 3 words per file. */
#define MAX_PART_WORDS 4096

struct TsParallelScan
{
	pg_atomic_uint32 next_task;
	int32		ntasks;
	int32		nprocesses;		/* planned: the workers and the leader */
	int64		snapshot_id;	/* the leader's snapshot, 0 = none */
	uint64		fingerprint;
	/* EXPLAIN ANALYZE figures of the workers, taken by the leader */
	pg_atomic_uint64 figures[TS_PARALLEL_NFIGURES];
	/*
	 * The CSV files cut into parts, one after another: split, file, the
	 * number of parts n, then the starts of parts 1 .. n - 1 (part 0
	 * starts at 0).
	 */
	int32		npart_words;
	int64		part_words[MAX_PART_WORDS];
};

Size
tablescan_parallel_size(void)
{
	return MAXALIGN(sizeof(TsParallelScan));
}

void
tablescan_parallel_init(TsParallelScan *ps, int nworkers)
{
	pg_atomic_init_u32(&ps->next_task, 0);
	ps->ntasks = 0;
	ps->nprocesses = Max(nworkers, 0) + 1;
	ps->snapshot_id = 0;
	ps->fingerprint = 0;
	ps->npart_words = 0;
	for (int i = 0; i < TS_PARALLEL_NFIGURES; i++)
		pg_atomic_init_u64(&ps->figures[i], 0);
}

static uint64
mix_bytes(uint64 h, const void *p, size_t len)
{
	return hash_combine64(h, hash_bytes_extended((const unsigned char *) p, (int) len, 0));
}

static uint64
mix_string(uint64 h, const char *s)
{
	return s ? mix_bytes(h, s, strlen(s) + 1) : mix_bytes(h, "", 0);
}

static uint64
mix_int(uint64 h, int64 v)
{
	return mix_bytes(h, &v, sizeof(v));
}

/* The fingerprint of a plan's tasks: what is read, in task order. */
static uint64
fingerprint(const ts_plan *plan, const TsParallelTask *tasks, int ntasks)
{
	uint64		h = 0;

	h = mix_int(h, plan->kind);
	h = mix_int(h, plan->schema ? plan->schema->id : -1);
	h = mix_int(h, plan->snapshot ? plan->snapshot->id : 0);
	h = mix_int(h, ntasks);
	for (int t = 0; t < ntasks; t++)
	{
		const ts_split *s = &plan->splits[tasks[t].split];
		int			first = tasks[t].file < 0 ? 0 : tasks[t].file;
		int			end = tasks[t].file < 0 ? s->nfiles : tasks[t].file + 1;

		h = mix_int(h, tasks[t].split);
		h = mix_int(h, tasks[t].file);
		h = mix_int(h, tasks[t].part);
		h = mix_int(h, tasks[t].nparts);
		h = mix_int(h, tasks[t].range_start);
		h = mix_int(h, tasks[t].range_end);
		h = mix_int(h, s->bucket);
		h = mix_int(h, s->total_buckets);
		h = mix_int(h, (s->raw_convertible ? 1 : 0) | (s->fallback ? 2 : 0));
		h = mix_bytes(h, s->partition.data, s->partition.data ? s->partition.len : 0);
		for (int f = first; f < end; f++)
		{
			const ts_scan_file *file = &s->files[f];

			h = mix_string(h, ts_scan_file_label(plan, file));
			h = mix_string(h, file->dv_path);
			h = mix_int(h, file->dv_offset);
			h = mix_int(h, file->dv_length);
		}
	}
	return h;
}

void
tablescan_parallel_publish(TsParallelScan *ps, const ts_plan *plan,
						   const TsParallelTask *tasks, int ntasks)
{
	ps->ntasks = ntasks;
	ps->snapshot_id = plan->snapshot ? plan->snapshot->id : 0;
	ps->fingerprint = fingerprint(plan, tasks, ntasks);
	pg_atomic_write_u32(&ps->next_task, 0);
}

void
tablescan_parallel_pin(const TsParallelScan *ps, TsTableOptions *opts)
{
	opts->pin_snapshot = true;
	opts->pinned_snapshot_id = ps->snapshot_id;
}

void
tablescan_parallel_check(const TsParallelScan *ps, const ts_plan *plan,
						 const TsParallelTask *tasks, int ntasks, Relation rel)
{
	if (ntasks != ps->ntasks || fingerprint(plan, tasks, ntasks) != ps->fingerprint)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("parallel scan of foreign table \"%s\" planned other files in a worker than in the leader",
						RelationGetRelationName(rel)),
				 errdetail("The Paimon table (a fallback branch, a format table's directory) changed while the query started."),
				 errhint("Run the query again, or SET max_parallel_workers_per_gather = 0.")));
}

/* Is task t's every file a small object read whole (so worth fetching ahead)? */
static bool
task_fetched_whole(const ts_plan *plan, const TsParallelTask *task)
{
	const ts_split *split = &plan->splits[task->split];
	int			first = task->file < 0 ? 0 : task->file;
	int			end = task->file < 0 ? split->nfiles : task->file + 1;

	if (task->nparts > 1)
		return false;
	for (int f = first; f < end; f++)
	{
		const ts_scan_file *file = &split->files[f];
		const char *path = ts_scan_file_path(plan, file, NULL);

		if (file->entry == NULL || file->range_end > 0 || path == NULL ||
			!ts_fs_path_is_remote(plan->fs, path) ||
			file->entry->file.file_size <= 0 ||
			file->entry->file.file_size > TS_PREFETCH_FILE_MAX)
			return false;
	}
	return true;
}

int
tablescan_parallel_claim(TsParallelScan *ps, const ts_plan *plan, const TsParallelTask *tasks,
						 int *first)
{
	uint32		next = pg_atomic_read_u32(&ps->next_task);
	int64		left = (int64) ps->ntasks - next;
	int			want;
	uint32		t;

	if (left <= 0)
		return 0;				/* no increments past the end when done */
	want = (int) Min(left / (2 * Max(ps->nprocesses, 1)), TS_PARALLEL_GROUP_MAX);
	if (want < 1 || !task_fetched_whole(plan, &tasks[next]))
		want = 1;
	t = pg_atomic_fetch_add_u32(&ps->next_task, (uint32) want);
	if (t >= (uint32) ps->ntasks)
		return 0;
	*first = (int) t;
	return (int) Min((int64) want, (int64) ps->ntasks - t);
}

void
tablescan_parallel_add_figures(TsParallelScan *ps, int64 *figures)
{
	for (int i = 0; i < TS_PARALLEL_NFIGURES; i++)
	{
		pg_atomic_fetch_add_u64(&ps->figures[i], (uint64) figures[i]);
		figures[i] = 0;
	}
}

void
tablescan_parallel_take_figures(TsParallelScan *ps, int64 *figures)
{
	for (int i = 0; i < TS_PARALLEL_NFIGURES; i++)
		figures[i] += (int64) pg_atomic_exchange_u64(&ps->figures[i], 0);
}

/* ---- the tasks: splits, files, parts of files -------------------------- */

typedef struct SizedTask
{
	TsParallelTask task;
	int64		bytes;
	int			order;
} SizedTask;

#define MAX_FILE_PARTS 1024

/* A new task at the end of *tasks (*n of *cap used; grown as needed). */
static SizedTask *
add_task(SizedTask **tasks, int *n, int *cap)
{
	if (*n == *cap)
	{
		*cap = Max(*cap * 2, 16);
		*tasks = *tasks ? repalloc(*tasks, sizeof(SizedTask) * *cap) :
			palloc(sizeof(SizedTask) * *cap);
	}
	return &(*tasks)[(*n)++];
}

/* The size of file f of split s in the manifest (0 if unknown). */
static int64
file_bytes(const ts_split *split, int f)
{
	const ts_manifest_entry *e = split->files[f].entry;

	return e && e->file.file_size > 0 ? e->file.file_size : 0;
}

/*
 * The parts of CSV file f of split s, at most nparts: their number (1:
 * read whole) and in starts their first bytes.  The leader (publish)
 * finds them and writes them into ps; the others read them from there.
 */
static int
csv_parts(TsParallelScan *ps, bool publish, const ts_plan *plan, int s, int f, int nparts,
		  int64 *starts)
{
	ts_err		err = {0};
	int			n;

	starts[0] = 0;
	if (!publish)
	{
		for (int w = 0; w + 2 < ps->npart_words; w += 3 + (int) ps->part_words[w + 2] - 1)
			if (ps->part_words[w] == s && ps->part_words[w + 1] == f)
			{
				n = (int) ps->part_words[w + 2];
				memcpy(starts + 1, &ps->part_words[w + 3], sizeof(int64) * (n - 1));
				return n;
			}
		return 1;
	}
	n = ts_split_file_part_starts(plan, &plan->splits[s], f, nparts, starts, &err);
	if (n < 0)
		tablescan_report(&err);
	if (n <= 1 || ps->npart_words + 3 + n - 1 > MAX_PART_WORDS)
		return 1;
	ps->part_words[ps->npart_words++] = s;
	ps->part_words[ps->npart_words++] = f;
	ps->part_words[ps->npart_words++] = n;
	memcpy(&ps->part_words[ps->npart_words], starts + 1, sizeof(int64) * (n - 1));
	ps->npart_words += n - 1;
	return n;
}

/*
 * The tasks of split s in a parallel scan, appended to *out (when not
 * NULL; *nout of *cap used, grown as needed); returns their number.  Each
 * of its files where they are read one by one on their own (append tables,
 * compacted buckets of primary-key tables, format tables), a large
 * Parquet, ORC, JSON or TEXT file of an append or format table in parts
 * of tablescan.parallel_task_size bytes, a large CSV file in parts that
 * start at records near those (csv_parts; without ps: the nominal parts,
 * to count them when planning); else the whole split, one task (merged by
 * key, or stitched by row-id range).
 */
static int
split_tasks(TsParallelScan *ps, bool publish, const ts_plan *plan, int s, const int *columns,
			int ncolumns, SizedTask **out, int *nout, int *cap)
{
	const ts_split *split = &plan->splits[s];
	int64		part_bytes = (int64) tablescan_parallel_task_size_kb * 1024;
	int64		starts[MAX_FILE_PARTS + 1];
	int			n = 0;

	if (!ts_split_reads_files_alone(plan, split, columns, ncolumns))
	{
		if (out)
		{
			SizedTask  *t = add_task(out, nout, cap);

			t->task = (TsParallelTask) {s, -1, 0, 1, 0, 0};
			t->bytes = 0;
			for (int f = 0; f < split->nfiles; f++)
				t->bytes += file_bytes(split, f);
		}
		return 1;
	}
	for (int f = 0; f < split->nfiles; f++)
	{
		int64		bytes = file_bytes(split, f);
		int			nparts = 1;

		if (bytes > part_bytes && ts_split_file_reads_in_ranges(plan, split, f, columns, ncolumns))
			nparts = (int) Min((bytes + part_bytes - 1) / part_bytes, MAX_FILE_PARTS);
		if (nparts > 1 && ps && ts_scan_file_parts_start_at_records(&split->files[f]))
			nparts = csv_parts(ps, publish, plan, s, f, nparts, starts);
		else
			for (int p = 0; p < nparts; p++)
				starts[p] = bytes / nparts * p;
		for (int p = 0; p < nparts; p++, n++)
			if (out)
			{
				SizedTask  *t = add_task(out, nout, cap);
				int64		end = p == nparts - 1 ? PG_INT64_MAX : starts[p + 1];

				t->task = (TsParallelTask) {s, f, p, nparts, 0, 0};
				t->bytes = bytes / nparts;
				if (nparts > 1)
				{
					/* part p of n: the row groups or lines that start in its bytes */
					t->task.range_start = starts[p];
					t->task.range_end = end;
					t->bytes = Min(end, bytes) - starts[p];
				}
			}
	}
	return n;
}

int
tablescan_parallel_count_tasks(const ts_plan *plan, const int *columns, int ncolumns)
{
	int			n = 0;

	for (int s = 0; s < plan->nsplits; s++)
		n += split_tasks(NULL, false, plan, s, columns, ncolumns, NULL, NULL, NULL);
	return n;
}

/* largest first, then plan order: the same order in every process */
static int
cmp_sized_task(const void *a, const void *b)
{
	const SizedTask *x = a;
	const SizedTask *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->order - y->order;
}

/*
 * The tasks of a parallel scan (split_tasks), the largest first, so that
 * the last tasks taken are short ones and the processes finish together.
 */
int
tablescan_parallel_tasks(TsParallelScan *ps, bool publish, const ts_plan *plan,
						 const int *columns, int ncolumns, TsParallelTask **tasks_out)
{
	SizedTask  *sized = NULL;
	TsParallelTask *tasks;
	int			n = 0,
				cap = 0;

	if (publish)
		ps->npart_words = 0;
	for (int s = 0; s < plan->nsplits; s++)
		split_tasks(ps, publish, plan, s, columns, ncolumns, &sized, &n, &cap);
	tasks = palloc(sizeof(TsParallelTask) * Max(n, 1));
	for (int t = 0; t < n; t++)
		sized[t].order = t;
	if (n > 1)
		qsort(sized, n, sizeof(SizedTask), cmp_sized_task);
	for (int t = 0; t < n; t++)
		tasks[t] = sized[t].task;
	if (sized)
		pfree(sized);
	*tasks_out = tasks;
	return n;
}

/*
 * The split a process reads for task: the plan's split, or (a one-file
 * task) a copy of it in *split_buf holding that file alone, in *file_buf,
 * with the task's byte range when the file is read in parts.
 */
const ts_split *
tablescan_parallel_task_split(const ts_plan *plan, const TsParallelTask *task,
							  ts_split *split_buf, ts_scan_file *file_buf)
{
	const ts_split *split = &plan->splits[task->split];

	if (task->file < 0)
		return split;
	*file_buf = split->files[task->file];
	if (task->nparts > 1)
	{
		file_buf->range_start = task->range_start;
		file_buf->range_end = task->range_end;
	}
	*split_buf = *split;
	split_buf->nfiles = 1;
	split_buf->files = file_buf;
	return split_buf;
}
