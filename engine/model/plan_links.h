// plan_links.h: the planner's schedule (mesh_plan.cpp calls it once the ops are placed): which
// inputs travel over the fabric between ops, on which colours, and the edge links that stream a
// layer's weights in. See plan_links.cpp and docs/model-compiler.md, "Links between ops".
#pragma once
#include "engine/model/mesh_plan.h"

#include <vector>

namespace wl::model {

// Links, relays and, in training, the gradients' links (the residual stream's, the embedding's):
// colours set in the ops' constants and transfers, their routes appended to *routes.
void plan_links(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes);
// Streaming: each weight-holding op of the layer gets an edge link of its own row (its LW).
void plan_edge_links(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes);

}  // namespace wl::model
