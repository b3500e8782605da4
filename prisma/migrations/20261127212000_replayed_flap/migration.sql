-- A Failover hand-over and back replayed from the consumer sets a churn within one poll passed
-- through. After HIDDEN_FLAP: the enum's order is schema.prisma's.
ALTER TYPE "change_kind" ADD VALUE 'REPLAYED_FLAP' AFTER 'HIDDEN_FLAP';
