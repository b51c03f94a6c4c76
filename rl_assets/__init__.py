"""rldelta: what did RL change in this checkpoint?"""
