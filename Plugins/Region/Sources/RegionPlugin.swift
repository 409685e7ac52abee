import LocusCore
import LocusRegions
import LocusStore
