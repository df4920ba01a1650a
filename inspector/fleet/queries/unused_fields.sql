-- JSON fields of tool results the model never used later (see `context-inspector tools --help`
-- for the heuristic), by how many results carried them.
SELECT tool, field, count(*) AS results_with_field,
       count(*) FILTER (WHERE list_contains(unused_fields, field)) AS results_unused
FROM (SELECT tool, unused_fields, unnest(fields) AS field FROM tools WHERE structured)
GROUP BY tool, field
HAVING results_unused = results_with_field
ORDER BY results_with_field DESC, tool, field
LIMIT 20
