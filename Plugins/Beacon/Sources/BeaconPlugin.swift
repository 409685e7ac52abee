// The `beacon` service is being written; this file holds the target's place.
enum BeaconServicePlaceholder {}
