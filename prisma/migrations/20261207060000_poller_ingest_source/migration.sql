-- Events Baton's poller writes itself: a double run seen in a lock's own records (Quartz's
-- executions of one job on two nodes at once), recorded as an exclusivity violation.
ALTER TYPE "ingest_source" ADD VALUE 'POLLER';
