"""Quality of an adjusted table (Cox et al. 2005): its measures, the quality terms a model may
bound or minimise, the auxiliary cells that carry them, and the cells' weights."""
