# Mutation, coverage, lint and synthesis targets.
