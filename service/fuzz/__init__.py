"""The proof of the rules contract: invariant checks, random legal play through the application
service (``arbiter fuzz``), replay of exported games, and golden games.  See docs/rules/contract.md,
section "Proof"."""
