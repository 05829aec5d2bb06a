-- What the capability rules (src/model/capability-rules.ts) make of each probe's two stored
-- bodies, kept beside them for the list's `supports=` and `ready=` filters, the statistics and
-- the change feed: `supports`, a JSON array of filter values; `verdict`, a JSON object of the
-- three app kinds' statuses. NULL until derived: openDatabase derives every NULL row from the
-- stored bodies right after the migrations (SQLite cannot run the rules), and `npm run derive`
-- derives every row again when the rules change.
ALTER TABLE `probes` ADD `supports` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `verdict` text;
