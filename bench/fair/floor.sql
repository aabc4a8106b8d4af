-- The floor (issue 38 §2): DuckDB inserting the rows rewind wrote, every
-- column as ingest wrote it, from one DuckDB table into the same table of
-- a fresh database, no decoding at all, in any order (rows carry seq), as
-- rewind's own insert runs. bench/fair.sh replaces @DB@ with rewind's
-- database.
SET preserve_insertion_order = false;
ATTACH '@DB@' AS src (READ_ONLY);
INSERT INTO requests SELECT * FROM src.requests;
