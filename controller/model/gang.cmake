# Gang scheduling: the desired PodGroup and the pod decorations (facts §4.7).
list(APPEND KPT_MODEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/gang.cpp)
