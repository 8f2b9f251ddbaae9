-- A data dir written by the storage as it was at commit cbfd897, which wrote the
-- revision into `meta` at every commit: create a, b and c; 1,000 compactions;
-- delete c with a compaction through it during its flush (so the flush trimmed
-- the whole log). meta holds revision 5, which no event and no object holds.
-- (storage-child.ts run on that commit's sources, dumped table by table.)
CREATE TABLE events (rev INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, prev TEXT);
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta VALUES ('revision', 5);
CREATE TABLE objects (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, value TEXT NOT NULL);
INSERT INTO objects VALUES ('/core/configmaps/default/a', 2, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"2"},"data":{"name":"a"}}');
INSERT INTO objects VALUES ('/core/configmaps/default/b', 3, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"3"},"data":{"name":"b"}}');
