"""The shared foundation: options, observation layouts, card-set helpers, the Game engine
interface and the one AEC adapter every game uses."""
