-- What kind of developer publishes the lists: `ehr`, a certified health IT developer (ONC's CHPL),
-- or `payer`, a health plan or program publishing a Patient Access API (the registry's `kind`).
ALTER TABLE `vendors` ADD `kind` text DEFAULT 'ehr' NOT NULL;
