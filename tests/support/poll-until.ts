// The tests' polling helper lives in tools/ (the redis-server starter there uses it too; tools
// never import tests/).
export { pollUntil, type PollResult } from "@/tools/poll-until";
