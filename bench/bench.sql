-- bench/bench.sql - helper functions for bench/run.sh (loaded once per cluster).
-- Times come from EXPLAIN (ANALYZE, TIMING OFF): the executor's own clock,
-- without sending rows to the client; best of n runs.

CREATE FUNCTION bench_exec_ms(q text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	best float8 := 'Infinity';
	j json;
BEGIN
	FOR k IN 1..n LOOP
		EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
		best := least(best, (j->0->>'Execution Time')::float8);
	END LOOP;
	RETURN best;
END $$;

-- planning time of one EXPLAIN (no execution)
CREATE FUNCTION bench_plan_ms(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (SUMMARY ON, FORMAT JSON) ' || q INTO j;
	RETURN (j->0->>'Planning Time')::float8;
END $$;

-- time to load the extension's library into this backend (LOAD); run it
-- first in a new backend
CREATE FUNCTION bench_load_ms() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz := clock_timestamp();
BEGIN
	LOAD 'tablescan_fdw';
	RETURN extract(epoch FROM clock_timestamp() - t) * 1000;
END $$;

-- estimated and actual rows of the top scan node of q
CREATE FUNCTION bench_rows(q text, OUT est float8, OUT act float8) LANGUAGE plpgsql AS $$
DECLARE
	j json;
	p json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
	p := j->0->'Plan';
	WHILE p->'Plans' IS NOT NULL LOOP
		p := p->'Plans'->0;
	END LOOP;
	est := (p->>'Plan Rows')::float8;
	act := (p->>'Actual Rows')::float8;
END $$;

-- this backend's peak resident set (kB), from /proc/self/status
CREATE FUNCTION bench_vmhwm_kb() RETURNS bigint LANGUAGE sql AS $$
	SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1]::bigint
$$;
