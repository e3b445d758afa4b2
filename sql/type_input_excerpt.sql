-- The simhash input error quotes at most 64 bytes of the value, whole
-- characters, with "..." after a cut, as the extension's other messages
-- quote features and tokenizer names: a 100 MB literal must not become a
-- 100 MB message in the server log and the client.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- 64 bytes are quoted whole; 65 are cut to 64.
SELECT repeat('z', 64)::text::simhash;
SELECT repeat('z', 65)::text::simhash;
-- A cut never splits a character: 2-byte é, and a 4-byte emoji that would
-- end past byte 64.
SELECT repeat('é', 40)::text::simhash;
SELECT (repeat('z', 62) || '😀')::text::simhash;
-- The type's input function (literals, casts of unknown) and the cast from
-- text, with 10 MB: the message is 64 bytes of the value and its frame.
CREATE FUNCTION pg_temp.message_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN 'no error';
EXCEPTION WHEN invalid_text_representation THEN
  RETURN length(SQLERRM) || ' characters: ' || SQLERRM;
END $$;
SELECT pg_temp.message_of($$SELECT simhash_in(repeat('z', 10000000)::cstring)$$) AS input_function;
SELECT pg_temp.message_of($$SELECT repeat('z', 10000000)::simhash$$) AS cast_from_text;
SELECT pg_temp.message_of($$SELECT repeat('0123456789abcdef', 625000)::varchar::simhash$$) AS cast_from_varchar;
-- The hint still reads the whole value, 0x prefix and all.
SELECT ('0x' || repeat('f', 100))::text::simhash;
