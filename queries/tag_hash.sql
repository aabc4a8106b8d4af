-- tag_hash: the chaos experiment's seeded 32-bit mixing hash, bit for bit.
--
-- Question: which users does a seeded plan tag? tag_hash(seed, i) < share
-- tags user i. The same integer steps as the seed's JavaScript (Math.imul
-- products taken modulo 2^32, unsigned shifts), so a plan written in SQL
-- picks exactly the users the experiment tagged.
-- Parameters:
--   seed  INTEGER  the plan's seed, e.g. 20260731
--   i     BIGINT   the user or request number
-- Columns:
--   (scalar) DOUBLE  a value in [0, 1): the mixed 32-bit word divided by 2^32
-- The words are UBIGINT: a 32-bit word times a 32-bit constant fits in 64
-- bits, so each product is taken modulo 2^32 with a mask. (The same steps
-- in HUGEINT with % cost about 3 µs a row; these cost about 30 ns.) Only
-- the inputs go through HUGEINT, so that any integer, negative or wider
-- than 64 bits, is reduced modulo 2^32 as before.
CREATE OR REPLACE MACRO _u32(x) AS (x::HUGEINT & 4294967295)::UBIGINT;
CREATE OR REPLACE MACRO _imul32(a, b) AS (a * b::UBIGINT) & 4294967295::UBIGINT;
CREATE OR REPLACE MACRO _mix32(x, s, m) AS _imul32(xor(x, x >> s), m);
CREATE OR REPLACE MACRO tag_hash(seed, i) AS
    xor(_mix32(_mix32(xor(_u32(seed), _imul32(_u32(i + 1), 2654435761)), 16, 2246822507), 13, 3266489909),
        _mix32(_mix32(xor(_u32(seed), _imul32(_u32(i + 1), 2654435761)), 16, 2246822507), 13, 3266489909) >> 16)
    / 4294967296.0;
