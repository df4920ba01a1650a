"""Provider wire rules: what OpenAI Chat Completions and Anthropic Messages accept, checked
(:mod:`.validate`) and written (:mod:`.export`)."""
