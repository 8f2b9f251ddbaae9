-- A data dir written by the storage as it was at commit 300bdd6, which wrote each
-- write into both `events` and `objects` (no `folded` row in `meta`): create a, b
-- and c; delete b; create d; then kill -9. (storage-child.ts run on that commit's
-- sources, dumped table by table.)
CREATE TABLE events (rev INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, prev TEXT);
INSERT INTO events VALUES (2, 'ADDED', '/core/configmaps/default/a', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"2"},"data":{"name":"a","blob":""}}', NULL);
INSERT INTO events VALUES (3, 'ADDED', '/core/configmaps/default/b', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"3"},"data":{"name":"b","blob":""}}', NULL);
INSERT INTO events VALUES (4, 'ADDED', '/core/configmaps/default/c', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","resourceVersion":"4"},"data":{"name":"c","blob":""}}', NULL);
INSERT INTO events VALUES (5, 'DELETED', '/core/configmaps/default/b', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"5"},"data":{"name":"b","blob":""}}', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"3"},"data":{"name":"b","blob":""}}');
INSERT INTO events VALUES (6, 'ADDED', '/core/configmaps/default/d', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","namespace":"default","resourceVersion":"6"},"data":{"name":"d","blob":""}}', NULL);
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE objects (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, value TEXT NOT NULL);
INSERT INTO objects VALUES ('/core/configmaps/default/a', 2, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","resourceVersion":"2"},"data":{"name":"a","blob":""}}');
INSERT INTO objects VALUES ('/core/configmaps/default/c', 4, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","resourceVersion":"4"},"data":{"name":"c","blob":""}}');
INSERT INTO objects VALUES ('/core/configmaps/default/d', 6, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","namespace":"default","resourceVersion":"6"},"data":{"name":"d","blob":""}}');
