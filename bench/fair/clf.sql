-- The fair anchor for text access logs (issue 38 §2): DuckDB's own
-- read_csv of one column per line loading bench/genlog's nginx log
-- (access.log: combined + $request_time $upstream_response_time, loaded by
-- rewind as `rewind ingest`) into the same requests table: regexp_extract
-- into the fields, the start as the logged end less the request time, the
-- other fields in attrs by json_object (nginx's names, sorted as rewind
-- sorts them; remote_user is "-", no value, on every line of this log), and
-- what rewind computes besides: line numbers and seq from row_number() OVER
-- () with preserve_insertion_order on, req and run_pos from file order,
-- t_ms from the earliest start, the outcome from the status (200-399 ok).
-- What it leaves out: layout detection, file:line:field errors (a line the
-- regex misses becomes a row of NULLs and fails the NOT NULLs, whole), the
-- input's hash, the time resolution and the run gaps.
-- bench/fair.sh replaces @FILE@ and checks that the rows equal rewind's.
SET preserve_insertion_order = true;
SET TimeZone = 'UTC';
INSERT INTO requests
WITH l AS (
	SELECT regexp_extract(line, '^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+) (\S+)" (\d{3}) (\S+) "([^"]*)" "([^"]*)" (\S+) (.*)$',
		['ip', 'u', 't', 'method', 'path', 'proto', 'status', 'bytes', 'ref', 'ua', 'rt', 'urt']) AS m,
		row_number() OVER () AS line
	FROM read_csv('@FILE@', columns = {'line': 'VARCHAR'}, header = false, delim = '\t', quote = '', escape = '', auto_detect = false)),
t AS (
	SELECT m, line, strptime(m.t, '%d/%b/%Y:%H:%M:%S %z')::TIMESTAMP - to_microseconds(round(m.rt::DECIMAL(18, 3) * 1000000)::BIGINT) AS ts
	FROM l)
SELECT 'access', 'access', '', line, line - 1, NULL, 0,
	(epoch_us(ts) - min(epoch_us(ts)) OVER ()) / 1000.0, ts, (m.rt::DECIMAL(18, 3) * 1000)::DOUBLE,
	CASE WHEN m.status::INTEGER BETWEEN 200 AND 399 THEN 'ok' ELSE 'error' END, m.status::INTEGER, false,
	NULL, NULL, NULL, NULL, NULL, 1,
	json_object('body_bytes_sent', m.bytes, 'http_referer', m.ref, 'http_user_agent', m.ua, 'method', m.method,
		'path', m.path, 'protocol', m.proto, 'remote_addr', m.ip, 'time_local', m.t, 'upstream_response_time', m.urt),
	1, line, line - 1
FROM t;
INSERT INTO experiments VALUES ('access', NULL);
INSERT INTO runs VALUES ('access', 'access', '', NULL);
