-- The anchor's rows against rewind's (@DB@): rows of either that the other
-- lacks, over every column but file_id. bench/fair.sh fails unless 0.
ATTACH '@DB@' AS src (READ_ONLY);
SELECT (SELECT count(*) FROM (SELECT * EXCLUDE (file_id, attrs), attrs::VARCHAR FROM requests
		EXCEPT ALL SELECT * EXCLUDE (file_id, attrs), attrs::VARCHAR FROM src.requests))
	+ (SELECT count(*) FROM (SELECT * EXCLUDE (file_id, attrs), attrs::VARCHAR FROM src.requests
		EXCEPT ALL SELECT * EXCLUDE (file_id, attrs), attrs::VARCHAR FROM requests))
	+ abs((SELECT count(*) FROM requests) - (SELECT count(*) FROM src.requests)) AS differing;
