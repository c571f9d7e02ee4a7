"""Recall for an observer (SPEC §6): one module per channel, the fusion, abstention, the use case.

    lexical_match         BM25 over held entries, stemmed, any word (leads)
    embedding_match       a pluggable embedder's cosine, when one is installed
    entity_neighborhood   memories sharing the entities in play
    recent_event          the observer's newest memories; the neighbours in time of strong candidates
    active_intent         memories tied to the observer's open loops and requests
    relationship_evidence evidence of the relationships it can see
    portrait_evidence     evidence of its own subjective claims
"""
